package realkubelet

import (
	"cmp"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	kubetypes "k8s.io/kubernetes/pkg/kubelet/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model"
	"github.com/podsim/podsim/oracle"
	kubeletoracle "github.com/podsim/podsim/oracle/kubelet"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/realkubelet/apiserver"
	"github.com/podsim/podsim/realkubelet/kstatus"
	"github.com/podsim/podsim/realkubelet/syncgate"
)

// statusComp is the status component (package components): the real status
// manager and pod manager (package kstatus) writing to the API-server
// model (package apiserver), next to the real pod workers. The driver's
// config source stays what it was (plan actions and housekeeping); the
// API server mirrors it (creates, client deletes, terminal phases set by
// others, removals), and what the status manager changes in the API comes
// back to config through the watch (the echo move), as in the simulated
// world (world/status.go):
//
//   - a create whose name another object still holds is refused by the API
//     server and never reaches config (the world's UniqueNames); the
//     plan's later actions on that UID, but queries and runtime kills,
//     are dropped with it until a create of the UID succeeds;
//   - the fake syncer's callbacks call the status manager as pkg/kubelet's
//     do: SyncPod sets the phase (Running, or Succeeded on natural
//     completion), SyncTerminatingPod sets the status with the kill's
//     status function when it begins and again when it succeeds, a
//     successful SyncTerminatedPod sets the final status and calls
//     TerminatePod; every status obeys generateAPIPodStatus's phase rules
//     (kstatus.SetPhase);
//   - the status manager's sync step runs at status-sync (the pass a
//     change triggers) and status-resync (the periodic pass) moves;
//   - its phase writes and its final delete are recorded as the notes the
//     kubelet oracle judges (K2, K3, K6, L7), in UID order within a pass
//     (syncBatch ranges over a map; each pod's sync is independent of the
//     others', so the order within a pass is not behaviour).
type statusComp struct {
	d   *Driver
	api *apiserver.Server
	mgr *kstatus.Manager
	// batch are the status manager's ops of the pass in progress.
	batch []apiserver.Op
	// echo: uid's API object changed (or left) and config has not seen it.
	echo map[types.UID]bool
	// refused: uid's latest create was refused (its name was taken).
	refused map[types.UID]bool
	// created counts API creates; incarnation is uid's object's.
	created     int
	incarnation map[types.UID]int
	deletedAt   map[types.UID]time.Duration
	// admitted: a create of uid reached the pod workers.
	admitted map[types.UID]bool
	// kube is the kubelet oracle (K2, K3, K6, L7), fed by the tape.
	kube oracle.Oracle
	// ev is what the exact predicates of status_explain.go need.
	ev statusEvidence
}

func newStatusComp(d *Driver) *statusComp {
	s := &statusComp{d: d, api: apiserver.New(time.Now), echo: map[types.UID]bool{}, refused: map[types.UID]bool{},
		incarnation: map[types.UID]int{}, deletedAt: map[types.UID]time.Duration{}, admitted: map[types.UID]bool{},
		ev: newStatusEvidence()}
	s.api.OnOp = s.onOp
	s.mgr = s.newManager()
	s.kube = kubeletoracle.New()
	d.h.Oracles = append(d.h.Oracles, committedOracle{s.kube, d.Probe})
	return s
}

// newManager is a real status manager over the API server, with the
// current pod workers as its deletion safety.
func (s *statusComp) newManager() *kstatus.Manager {
	d := s.d
	safety := d.pw.CouldHaveRunningContainers
	if d.opts.plant == plantUnsafeStatus {
		safety = func(types.UID) bool { d.planted = true; return false }
	}
	return kstatus.New(s.api, safety, quietLogger())
}

// restart is the status component's share of a kubelet restart
// (restart.go): a fresh status manager and pod manager over the same API
// server; the kubelet's memory of admissions is gone.
func (s *statusComp) restart() {
	s.mgr, s.batch, s.admitted = s.newManager(), nil, map[types.UID]bool{}
}

// readd is the new process's pod manager learning uid at re-admission.
func (s *statusComp) readd(uid types.UID) {
	s.admitted[uid] = true
	s.mgr.Pods.AddPod(s.d.podOf(uid))
}

// apiPod is uid's pod as a client creates it: bound to the node, Pending
// until the status manager writes what the kubelet saw.
func (s *statusComp) apiPod(uid types.UID) *v1.Pod {
	p := s.d.podOf(uid)
	p.Spec.NodeName, p.Status.Phase = "node", v1.PodPending
	p.DeletionTimestamp, p.DeletionGracePeriodSeconds = nil, nil
	return p
}

// before mirrors a plan action into the API server; true if the action
// must not happen (a refused create, an action on a pod whose create was
// refused).
func (s *statusComp) before(a plan.Action, p *configPod) bool {
	if a.UID == "" || p.action.Static {
		return false
	}
	if s.refused[a.UID] && a.Kind != plan.Create && a.Kind != plan.Query && a.Kind != plan.RuntimeKill {
		return true
	}
	switch a.Kind {
	case plan.Create:
		if p.inConfig {
			return false // an ADD of a pod config has is an UPDATE
		}
		return !s.create(a.UID)
	case plan.Delete:
		s.clientDelete(a)
	case plan.Finish:
		if cur, ok := s.api.ByUID(a.UID); ok && cur.Status.Phase != v1.PodPhase(a.Terminal) {
			cur.Status.Phase = v1.PodPhase(a.Terminal)
			_, _ = s.api.Update("client", cur, true)
		}
	case plan.Remove, plan.Vanish:
		// The object left the API (a force delete by someone else, or the
		// source lost it); the status manager has nothing to delete.
		if cur, ok := s.api.ByUID(a.UID); ok {
			_, _ = s.api.Delete("config source", cur.Namespace, cur.Name,
				metav1.DeleteOptions{GracePeriodSeconds: new(int64), Preconditions: metav1.NewUIDPreconditions(string(a.UID))})
		}
	}
	return false
}

// create puts uid's object into the API; false if its name is taken.
func (s *statusComp) create(uid types.UID) bool {
	if _, err := s.api.Create("client", s.apiPod(uid)); apierrors.IsAlreadyExists(err) {
		s.refused[uid] = true
		return false
	}
	delete(s.refused, uid)
	s.created++
	s.incarnation[uid] = s.created
	delete(s.deletedAt, uid)
	return true
}

// clientDelete is a client's graceful delete of uid's object, by name with
// its UID as precondition.
func (s *statusComp) clientDelete(a plan.Action) {
	cur, ok := s.api.ByUID(a.UID)
	if !ok {
		return
	}
	g := max(a.Grace, 0)
	s.d.h.Note(history.DeleteRequested{UID: a.UID, Grace: g})
	if _, seen := s.deletedAt[a.UID]; !seen {
		s.deletedAt[a.UID] = s.d.h.Now().Sub(s.d.h.Start)
	}
	_, _ = s.api.Delete("client", cur.Namespace, cur.Name,
		metav1.DeleteOptions{GracePeriodSeconds: &g, Preconditions: metav1.NewUIDPreconditions(string(a.UID))})
	if _, still := s.api.ByUID(a.UID); !still {
		s.echo[a.UID] = true // removed at once (terminal phase)
	}
}

// after tells the pod manager what config now holds for the action's pod
// (HandlePodAdditions, HandlePodUpdates, HandlePodRemoves do, before the
// pod workers hear of it; the order does not matter between steps).
func (s *statusComp) after(a plan.Action) {
	p := s.d.pods[a.UID]
	if p == nil || a.UID == "" {
		return
	}
	switch {
	case a.Kind == plan.Create && p.inConfig:
		s.admitted[a.UID] = true
		s.mgr.Pods.AddPod(s.d.podOf(a.UID))
	case p.inConfig && (a.Kind == plan.Update || a.Kind == plan.Delete || a.Kind == plan.Finish):
		s.mgr.Pods.UpdatePod(s.d.podOf(a.UID))
	case !p.inConfig && (a.Kind == plan.Remove || a.Kind == plan.Vanish):
		s.mgr.Pods.RemovePod(s.d.podOf(a.UID))
	}
}

// active is housekeeping's restart filter with the status component on:
// only active pods are re-created (HandlePodCleanups restarts the pods of
// filterOutInactivePods). That filter is a *Kubelet method (isPodInactive,
// isAdmittedPodTerminal), so it cannot be called: this restates its rule,
// as package world does (world/admission.go activePods), over the real
// pod workers' queries and the real status manager's cached phase — a pod
// is inactive once known terminated, or once its config phase or its
// status manager phase is terminal unless its termination is requested.
// (The world's own restart filter, world/kubelet.go restartable, leaves
// the status manager's phase out on purpose; here it is in, as upstream
// has it.)
func (s *statusComp) active(pod *v1.Pod) bool {
	if s.d.pw.IsPodKnownTerminated(pod.UID) {
		return false
	}
	terminal := pod.Status.Phase == v1.PodSucceeded || pod.Status.Phase == v1.PodFailed
	if st, ok := s.mgr.GetPodStatus(pod.UID); ok && (st.Phase == v1.PodSucceeded || st.Phase == v1.PodFailed) {
		terminal = true
	}
	return !terminal || s.d.pw.IsPodTerminationRequested(pod.UID)
}

// callBegan: SyncTerminatingPod sets the status, with the kill's status
// function, before it stops anything.
func (s *statusComp) callBegan(c *syncgate.Call) {
	s.ev.began(c.UID, c.Fn)
	if c.Fn == model.SyncTerminatingPod && c.Pod != nil {
		s.mgr.SetPhase(c.Pod, "", c.StatusFn)
	}
	if c.Fn == model.SyncTerminatedPod && s.d.opts.plant == plantEarlyTerminate {
		s.d.planted = true
		s.terminated(c.Pod)
	}
}

// callEnded is what the kubelet's callbacks tell the status manager as
// they return (o is what the syncer returns).
func (s *statusComp) callEnded(c *syncgate.Call, o syncgate.Outcome) {
	if c.Pod == nil {
		return
	}
	switch {
	case c.Fn == model.SyncPod && o == syncgate.ReturnTerminal:
		s.mgr.SetPhase(c.Pod, v1.PodSucceeded, nil)
	case c.Fn == model.SyncPod && o == syncgate.ReturnOK:
		s.mgr.SetPhase(c.Pod, v1.PodRunning, nil)
	case c.Fn == model.SyncTerminatingPod && o == syncgate.ReturnOK:
		s.mgr.SetPhase(c.Pod, "", nil) // the status once the containers stopped
	case c.Fn == model.SyncTerminatedPod && o == syncgate.ReturnOK:
		if p := s.d.opts.plant; p == plantNoTerminate || p == plantEarlyTerminate {
			s.d.planted = true
			return
		}
		s.terminated(c.Pod)
	}
}

func (s *statusComp) terminated(pod *v1.Pod) {
	s.ev.terminated(pod.UID)
	s.mgr.Terminated(pod)
}

// sync is one pass of the status manager; its writes become notes.
func (s *statusComp) sync(all bool) {
	s.batch = s.batch[:0]
	s.mgr.Sync(s.d.ctx, all)
	slices.SortStableFunc(s.batch, func(a, b apiserver.Op) int { return cmp.Compare(a.UID, b.UID) })
	for _, op := range s.batch {
		s.echo[op.UID] = true
		switch op.Verb {
		case apiserver.PatchStatus, apiserver.UpdateStatus:
			if op.PhaseChanged {
				s.noteWrite(op.UID, history.PhaseWritten{UID: op.UID, Phase: op.Phase}, classPhaseWritten(op.From, op.Phase))
			}
		case apiserver.DeleteRemoved:
			s.noteWrite(op.UID, history.Removed{UID: op.UID, By: kubeletoracle.StatusManager}, s.ev.classFinalDelete(op.UID))
		}
	}
}

func (s *statusComp) onOp(op apiserver.Op) {
	if op.Actor == kstatus.Actor {
		s.batch = append(s.batch, op)
	}
}

// echoes reports whether the echo move has anything to deliver.
func (s *statusComp) echoes() bool {
	for uid := range s.echo {
		if p := s.d.pods[uid]; p != nil && p.inConfig {
			return true
		}
	}
	return false
}

// deliverEchoes is the config watch: API changes arrive as UPDATE (a new
// phase) or REMOVE (the object left).
func (s *statusComp) deliverEchoes() {
	for _, uid := range sortedKeys(s.echo) {
		delete(s.echo, uid)
		p := s.d.pods[uid]
		if p == nil || !p.inConfig || p.action.Static {
			continue
		}
		cur, inAPI := s.api.ByUID(uid)
		switch {
		case !inAPI:
			p.inConfig = false
			s.mgr.Pods.RemovePod(s.d.podOf(uid))
			s.d.update(kubetypes.SyncPodKill, uid)
		case cur.Status.Phase != p.phase:
			p.phase, p.version = cur.Status.Phase, p.version+1
			s.mgr.Pods.UpdatePod(s.d.podOf(uid))
			s.d.update(kubetypes.SyncPodUpdate, uid)
		}
	}
}

func sortedKeys[V any](m map[types.UID]V) []types.UID {
	out := make([]types.UID, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
