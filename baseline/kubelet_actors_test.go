package baseline

import (
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/workers"
	"github.com/podsim/podsim/world"
)

// The baseline kubelet's goroutines besides the sync loop: the status
// manager (status.go), the eviction manager (eviction.go) and the node
// shutdown manager (shutdown.go), on the real runtime.

// statusTick is one pass of the status manager: write each pod's phase
// to the API (a terminal one only once the pod can have no running
// containers, unless B10), delete a deleted pod once SyncTerminatedPod
// finished it, then deliver the API changes older than the echo lag to the
// config source (in the sync loop).
func (w *baseWorld) statusTick() {
	w.mu.Lock()
	uids := sortedUIDsOf(w.pods)
	w.mu.Unlock()
	for _, uid := range uids {
		w.writePhase(uid)
		w.deleteIfFinished(uid)
	}
	w.loop.Lock()
	defer w.loop.Unlock()
	w.deliverEchoes()
}

// writePhase publishes uid's status phase if it changed. The write is
// dropped if a new pod object or a new worker record for the UID came in
// between the decision and the write (the next tick decides again); K2
// asks the pod workers itself at the write.
func (w *baseWorld) writePhase(uid types.UID) {
	w.mu.Lock()
	p := w.pods[uid]
	phase, inc := w.kube.statusOf(uid).Phase, p.incarnation
	due := p.inAPI && phase != "" && phase != p.apiPhase && !terminalPhase(p.apiPhase)
	ignoreRunning := w.kube.bugs.B10StatusIgnoresRunning
	w.mu.Unlock()
	if !due || (terminalPhase(phase) && !ignoreRunning && w.pw.CouldHaveRunningContainers(uid)) {
		return
	}
	couldRun := w.pw.CouldHaveRunningContainers(uid)
	w.mu.Lock()
	defer w.mu.Unlock()
	if p.incarnation != inc || !p.inAPI || w.kube.statusOf(uid).Phase != phase || terminalPhase(p.apiPhase) {
		return
	}
	w.checkPhaseWrite(uid, phase, couldRun)
	p.apiPhase = phase
	w.echoLater(p)
}

// deleteIfFinished is the final API delete (UID precondition) of a
// deleted pod with a terminal API phase whose SyncTerminatedPod finished;
// K3 asks the pod workers itself at the delete.
func (w *baseWorld) deleteIfFinished(uid types.UID) {
	w.mu.Lock()
	p := w.pods[uid]
	inc := p.incarnation
	due := p.inAPI && p.deletion != nil && terminalPhase(p.apiPhase) && w.kube.statusOf(uid).Finished
	w.mu.Unlock()
	if !due {
		return
	}
	beFinished, knownTerminated := w.pw.ShouldPodBeFinished(uid), w.pw.IsPodKnownTerminated(uid)
	w.mu.Lock()
	defer w.mu.Unlock()
	st := w.kube.statusOf(uid)
	if p.incarnation != inc || !p.inAPI || p.deletion == nil || !st.Finished {
		return
	}
	w.checkAPIDelete(uid, beFinished, knownTerminated, st.Finished)
	w.checkRemoved(p, "status manager", false)
	p.inAPI = false
	w.leftAPI(p)
	w.echoLater(p)
}

// echoLater schedules the config watch's echo of an API change of p; the
// caller holds mu.
func (w *baseWorld) echoLater(p *basePod) {
	if !p.echoDue {
		p.echoDue, p.echoAt = true, time.Now().Add(w.kube.node.EchoLag/baselineScale)
	}
}

// deliverEchoes is the config watch (World.deliverEchoes): API changes
// older than the echo lag arrive as REMOVE (the pod was deleted) or
// UPDATE (a new phase). The caller holds loop.
func (w *baseWorld) deliverEchoes() {
	var sends []workers.UpdatePodOptions
	w.mu.Lock()
	for _, uid := range sortedUIDsOf(w.pods) {
		p := w.pods[uid]
		if !p.echoDue || time.Now().Before(p.echoAt) {
			continue
		}
		p.echoDue = false
		switch {
		case !p.inAPI && p.inConfig:
			p.inConfig = false
			delete(w.restart, uid)
			sends = append(sends, workers.UpdatePodOptions{UpdateType: workers.SyncPodKill, Pod: w.podOf(uid)})
		case p.apiPhase != p.phase && p.inConfig:
			p.phase, p.version = p.apiPhase, p.version+1
			if p.admitted {
				sends = append(sends, workers.UpdatePodOptions{UpdateType: workers.SyncPodUpdate, Pod: w.podOf(uid)})
			}
		}
	}
	w.mu.Unlock()
	for _, o := range sends {
		w.updatePod(o)
	}
}

// callBegan and callEnded are the status manager's side of the sync
// callbacks (World's kubelet.callBegan/callEnded): a SyncPod or
// SyncTerminatingPod starts an incarnation that has not finished; a
// successful SyncPod publishes Running, or Succeeded on natural
// completion; a successful SyncTerminatedPod makes the pod terminal
// (Failed unless already terminal) and finished.
func (w *baseWorld) callBegan(fn string, uid types.UID) {
	if w.kube == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.kube.statusOf(uid).Finished = false
	if fn == "SyncPod" {
		w.checkSyncPodBegins(uid)
	}
}

func (w *baseWorld) callEnded(fn string, uid types.UID, isTerminal bool) {
	if w.kube == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	st := w.kube.statusOf(uid)
	switch {
	case fn == "SyncPod" && isTerminal:
		st.Phase = v1.PodSucceeded
	case fn == "SyncPod" && !terminalPhase(st.Phase):
		st.Phase = v1.PodRunning
	case fn == "SyncTerminatedPod":
		if !terminalPhase(st.Phase) {
			st.Phase = v1.PodFailed
		}
		st.Finished = true
	}
}

// statusFnApplied: a successful SyncTerminatingPod of a kill with a status
// function (eviction, node shutdown) lets it edit the published status.
func (w *baseWorld) statusFnApplied(uid types.UID, fn workers.PodStatusFunc) {
	if w.kube == nil || fn == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	st := w.kube.statusOf(uid)
	s := v1.PodStatus{Phase: st.Phase}
	if s.Phase == "" {
		s.Phase = v1.PodRunning
	}
	fn(&s)
	st.Phase = s.Phase
}

// goActor runs a kubelet actor in a goroutine of its own, counted for the
// settle phase and waited for before the end-state checks.
func (w *baseWorld) goActor(name string, f func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.goActorLocked(name, f)
}

// goActorLocked is goActor for a caller that holds mu.
func (w *baseWorld) goActorLocked(name string, f func()) {
	w.actorsRunning++
	w.actors.Add(1)
	go func() {
		defer w.actors.Done()
		defer func() {
			w.mu.Lock()
			w.actorsRunning--
			w.mu.Unlock()
		}()
		defer w.checks.recoverAs(name)
		f()
	}()
}

// evict is the eviction manager (World.evict): only an active pod that is
// neither static nor critical is evicted, with KillPodNow(evict=true) and
// the Failed/Evicted status function; then it polls ShouldPodBeFinished
// until it holds or the cleanup timeout passes.
func (w *baseWorld) evict(a plan.Action) {
	w.mu.Lock()
	p := w.pods[a.UID]
	spared := p == nil || !p.inConfig || (w.kube != nil && !p.admitted) || p.action.Static || p.action.Priority >= plan.CriticalPriority
	var pod *v1.Pod
	if !spared {
		pod = w.podOf(a.UID)
		delete(w.restart, a.UID)
	}
	w.mu.Unlock()
	if spared || w.pw.IsPodKnownTerminated(a.UID) {
		return
	}
	var grace *int64
	if a.Grace >= 0 {
		g := a.Grace
		grace = &g
	}
	w.newRecordIfUnknown(a.UID)
	_ = w.pw.KillPodNow(pod, true, grace, world.EvictedStatus)
	for waited := time.Duration(0); waited <= world.EvictionCleanupTimeout; waited += world.EvictionCleanupPoll {
		if w.pw.ShouldPodBeFinished(a.UID) {
			return
		}
		time.Sleep(world.EvictionCleanupPoll / baselineScale)
	}
}

// shutdown is the node shutdown manager (World.shutdown): under the sync
// loop it closes admission and takes one snapshot of the active pods;
// then it kills them group by group in ascending priority, all pods of a
// group in parallel (KillPodNow, evict=false, grace min(group grace, spec
// grace), its status function), each group given its grace period.
func (w *baseWorld) shutdown() {
	w.loop.Lock()
	w.mu.Lock()
	again := w.kube.shuttingDown
	w.kube.shuttingDown = true
	w.mu.Unlock()
	var snapshot []types.UID
	if !again {
		snapshot = w.activePods("")
	}
	w.loop.Unlock()
	if again {
		return
	}
	groups := w.kube.node.ShutdownGroups
	if len(groups) == 0 {
		groups = []plan.ShutdownGroup{{Priority: 0, Grace: 30}}
	}
	fn := world.ShutdownStatusFn(w.kube.bugs) // the World's own function: the same B4
	for i, g := range groups {
		done := make(chan struct{}, len(snapshot))
		n := 0
		for _, uid := range snapshot {
			if w.shutdownGroupOf(uid, groups) != i {
				continue
			}
			n++
			w.shutdownKill(uid, g.Grace, fn, done)
		}
		timeout := time.After(time.Duration(g.Grace) * time.Second / baselineScale)
		for ; n > 0; n-- {
			select {
			case <-done:
			case <-timeout:
				n = 1 // the group's grace is over: on to the next one
			}
		}
	}
}

// shutdownGroupOf is the index of the last group whose priority is at most
// the pod's (the first group takes any lower one).
func (w *baseWorld) shutdownGroupOf(uid types.UID, groups []plan.ShutdownGroup) int {
	w.mu.Lock()
	prio := w.pods[uid].action.Priority
	w.mu.Unlock()
	g := 0
	for j := range groups {
		if groups[j].Priority <= prio {
			g = j
		}
	}
	return g
}

// shutdownKill starts one pod's kill; done gets a value when it returns.
func (w *baseWorld) shutdownKill(uid types.UID, groupGrace int64, fn workers.PodStatusFunc, done chan<- struct{}) {
	w.mu.Lock()
	p := w.pods[uid]
	grace := min(groupGrace, p.action.SpecGrace)
	p.killedByShutdown = true
	delete(w.restart, uid)
	pod := w.podOf(uid)
	w.checkShutdownKill(uid, fn)
	w.mu.Unlock()
	w.goActor(fmt.Sprintf("shutdown-kill/%s", uid), func() {
		defer func() { done <- struct{}{} }()
		w.newRecordIfUnknown(uid)
		_ = w.pw.KillPodNow(pod, false, &grace, fn)
	})
}

// kubeletBusy: the kubelet still has work in progress the settle phase
// must let finish (World.KubeletBusy): an actor running, an echo due, a
// phase to publish or a finished deleted pod to delete.
func (w *baseWorld) kubeletBusy() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.actorsRunning > 0 {
		return true
	}
	if w.kube == nil {
		return false
	}
	for uid, p := range w.pods {
		if p.echoDue {
			return true
		}
		st := w.kube.statusOf(uid)
		if p.inAPI && ((st.Phase != "" && st.Phase != p.apiPhase && !terminalPhase(p.apiPhase)) || (p.deletion != nil && st.Finished)) {
			return true
		}
	}
	return false
}
