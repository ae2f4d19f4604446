package realkubelet

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/kubernetes/pkg/kubelet"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	kubetypes "k8s.io/kubernetes/pkg/kubelet/types"
)

// Housekeeping's kill of runtime pods, as v1.36.3's HandlePodCleanups
// (kubelet_pods.go) has it. The facts, in the order upstream takes them:
//
//  1. SyncKnownPods with every pod of the pod manager (rejected pods
//     included) prunes the workers' records and returns the rest: the
//     "working pods", every UID the workers still hold a record of
//     (syncing, terminating or terminated; finished orphans and finished
//     restart requests are purged and left out).
//  2. The runtime cache is refreshed and its running pods listed.
//  3. Every active pod (filterOutInactivePods: not rejected, not terminal
//     unless still terminating) that is not among the working pods is
//     sent a create, and counts as working from then on.
//  4. Every pod of the pod manager that is deleted, terminal, not working
//     and not among the runtime's running pods is sent a kill with the
//     pod (filterTerminalPodsToDelete; killTerminalDeleted here).
//  5. Every pod the runtime runs whose UID is not working gets a kill
//     with only the RunningPod (no Pod) and a grace override of 1, and
//     counts as working (terminating, orphan) from then on. Nothing else
//     is asked: not whether the UID is in config, static, rejected or
//     terminal. Housekeeping excludes every other UpdatePod while it runs,
//     so such a kill always reaches a UID with no record, which it makes
//     (observedRuntime). Step 5 is the only sender of RunningPod kills in
//     the kubelet.
//
// So "known to the workers" is what decides, not "in config". The two
// agree on an active pod in config (step 3 made it known) and differ on a
// pod in config the workers do not know: one rejected at admission, or a
// terminal one whose record was purged. A rejected pod whose containers
// an earlier kubelet process left running is killed by step 5, and once
// they stopped and the record went, step 4 finishes the pod if it was
// deleted (swarm-restart seed 16,845, testdata/L7-rejected-runtime-pod.clean).
//
// The driver's housekeeping does steps 1, 3, 4 (with the status
// component) and 5 (killRuntimeOnly), over the fake runtime (d.running).
// A plan's runtime-kill move stands for step 5 at one UID: the runtime
// reports the UID's containers and housekeeping kills them. The move is
// dropped when the workers know the UID (runtimeKillDropped), so that
// only kills upstream's step 5 could send reach the workers; it keeps the
// old rule's one exception, below.

// runtimeKillDropped: the plan's runtime-kill of uid is not sent. The
// workers know uid: they hold a record of it (d.records), or it is an
// active pod in config, which step 3 would make known before step 5.
// Upstream's step 1 would first purge a finished orphan's record; the
// move does not purge (a kill of a finished record is ignored by
// UpdatePod anyway), and housekeeping's own step 5 kills the runtime pod
// after the purge.
//
// A UID no kubelet process ever added (never in config) is the scripts'
// pod-worker contract input, as a bare update or remove of it is
// (configUpdate, actors.NoteRemove): its runtime kill is sent even when a
// bare update made a record. The pod workers still handle a RunningPod
// kill that reaches a record (their guard for a stale runtime cache,
// #103625, is BUGS.md's B3), and only this input reaches that code.
func (d *Driver) runtimeKillDropped(uid types.UID) bool {
	if _, added := d.actors.FirstAddAt[uid]; !added {
		return false
	}
	if d.records[uid] {
		return true
	}
	p := d.pods[uid]
	return p != nil && p.inConfig && d.restartable(d.podOf(uid))
}

// restartable: step 3 creates pod if the workers do not know it:
// filterOutInactivePods' pods. A pod rejected at admission is not among
// them (its status is Failed); with the status component, its Active says
// which are (status.Component.Active).
func (d *Driver) restartable(pod *v1.Pod) bool {
	return !d.actors.Rejected[pod.UID] && (d.st == nil || d.st.Active(pod))
}

// killRuntimeOnly is step 5: every UID the fake runtime runs that the
// workers do not know after steps 1 and 3 (d.records, which holds
// SyncKnownPods' answer and the creates sent since) is killed as a
// runtime-only pod, in UID order.
func (d *Driver) killRuntimeOnly() {
	for _, uid := range d.sortedUniverse() {
		if d.running[uid] && !d.records[uid] {
			d.runtimeKill(uid)
		}
	}
}

// runtimeKill is step 5's kill of uid (grace 1, RunningPod only). The
// runtime reported the pod, so the fake runtime now has its containers,
// unless the workers already know it terminated (a stale runtime cache,
// #103625, which the workers must ignore). A pod this process rejected at
// admission never started here: the runtime has its containers only if an
// earlier process left them (d.running), else there is nothing to kill.
func (d *Driver) runtimeKill(uid types.UID) {
	if d.actors.Rejected[uid] && !d.running[uid] {
		return
	}
	if !d.pw.IsPodKnownTerminated(uid) {
		d.running[uid] = true
	}
	d.ev.RuntimeKillStep[uid] = d.Step
	one := int64(1)
	d.updatePod(kubelet.UpdatePodOptions{UpdateType: kubetypes.SyncPodKill,
		RunningPod:     &kubecontainer.Pod{ID: uid, Name: "pod-" + string(uid), Namespace: "default"},
		KillPodOptions: &kubelet.KillPodOptions{PodTerminationGracePeriodSecondsOverride: &one}}, 0, "driver")
}

// The driver's copy of which UIDs the pod workers hold a record of
// (podSyncStatuses' keys, which no query reports: before the first
// SyncKnownPods an unknown UID answers as a record not asked to terminate
// does, view.go): every UpdatePod sent makes one; SyncKnownPods keeps
// those it returns; a successful SyncTerminatingRuntimePod ends with
// completeTerminatingRuntimePod, which forgets it; a restart begins with
// none. TestRecordsMatchTheQueries checks it against the queries.

// noteRecords replaces the copy with SyncKnownPods' answer.
func (d *Driver) noteRecords(known map[types.UID]kubelet.PodWorkerSync) {
	clear(d.records)
	for uid := range known {
		d.records[uid] = true
	}
}

// checkPurged is S14 strict at the instant SyncKnownPods returned, for the
// completions of the records it purged: the UID then has no record, so
// CouldHaveRunningContainers is false, and nothing can close the channel
// any more. Step 5 may give the UID a new record in the same step (a purged
// unstarted record whose containers an earlier process left), which the
// check at rest would see instead, with the new record's evidence (hold
// swarm-restart seeds 7,084 and 16,437: a kill of a readmitted pod that
// never started, purged by G2's unstarted-orphan path, left unjudged or
// unexplained). It runs before the purge ends the incarnations, so
// OpenCompletion judges the purged record.
func (d *Driver) checkPurged(known map[types.UID]kubelet.PodWorkerSync) {
	d.checkCompletionsOf(func(c *completion) bool {
		_, kept := known[c.uid]
		return d.records[c.uid] && !kept && !c.recordOver
	})
}
