// Package status is the real kubelet's status component: the real status
// manager and pod manager (package kstatus) writing to the API-server
// model (package apiserver) beside the real pod workers, the notes its
// writes become for the kubelet oracle (K2, K3, K6, L7), and the exact
// predicates of its known upstream deviations (GF, GG). The driver is its
// Host: the config source, the pod workers, the tape, the context.
package status

import (
	"cmp"
	"context"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/kubernetes/pkg/kubelet"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/oracle"
	kubeletoracle "github.com/podsim/podsim/oracle/kubelet"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/realkubelet/apiserver"
	"github.com/podsim/podsim/realkubelet/kstatus"
	"github.com/podsim/podsim/realkubelet/planted"
	"github.com/podsim/podsim/realkubelet/syncgate"
	"github.com/podsim/podsim/realkubelet/tape"
)

// Component is the status component (package components): the real status
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
type Component struct {
	host   Host
	plants Plants
	api    *apiserver.Server
	mgr    *kstatus.Manager
	// batch are the status manager's ops of the pass in progress.
	batch []apiserver.Op
	// freshMisses are judgeFresh's findings (P5), for Unwritten.
	freshMisses []string
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
	// Kube is the kubelet oracle (K2, K3, K6, L7), fed by the tape.
	Kube oracle.Oracle
	// ev is what the exact predicates of explain.go need.
	ev statusEvidence
	// judged are the K7 and K8 findings the driver has not taken (ready.go).
	judged []Judged
}

// Host is what the component needs of the driver.
type Host interface {
	Tape() *tape.Tape
	Context() context.Context
	// Workers are the current pod workers (a restart replaces them).
	Workers() kubelet.PodWorkers
	// PodOf is uid's pod as config holds it (a fresh copy).
	PodOf(uid types.UID) *v1.Pod
	// InConfig reports whether config knows uid (known) and holds it now.
	InConfig(uid types.UID) (known, inConfig bool)
}

// New is the component of host, with the API server empty.
func New(host Host, plants Plants) *Component {
	s := &Component{host: host, plants: plants, api: apiserver.New(time.Now), echo: map[types.UID]bool{}, refused: map[types.UID]bool{},
		incarnation: map[types.UID]int{}, deletedAt: map[types.UID]time.Duration{}, admitted: map[types.UID]bool{},
		ev: newStatusEvidence()}
	s.api.OnOp = s.onOp
	s.mgr = s.newManager()
	s.Kube = kubeletoracle.New()
	return s
}

// Restart is the status component's share of a kubelet restart
// (the driver's restart.go): a fresh status manager and pod manager over the same API
// server; the kubelet's memory of admissions is gone.
func (s *Component) Restart() {
	s.mgr, s.batch, s.admitted = s.newManager(), nil, map[types.UID]bool{}
	s.ev.restart()
}

// Readd is the new process's pod manager learning uid at re-admission.
func (s *Component) Readd(uid types.UID) {
	s.admitted[uid] = true
	s.mgr.Pods.AddPod(s.host.PodOf(uid))
}

// apiPod is uid's pod as a client creates it: bound to the node, Pending
// until the status manager writes what the kubelet saw.
func (s *Component) apiPod(uid types.UID) *v1.Pod {
	p := s.host.PodOf(uid)
	p.Spec.NodeName, p.Status.Phase = "node", v1.PodPending
	p.DeletionTimestamp, p.DeletionGracePeriodSeconds = nil, nil
	return p
}

// Before mirrors a plan action into the API server; true if the action
// must not happen (a refused create, an action on a pod whose create was
// refused). static and inConfig are config's pod of the action's UID.
func (s *Component) Before(a plan.Action, static, inConfig bool) bool {
	if a.UID == "" || static {
		return false
	}
	if s.refused[a.UID] && a.Kind != plan.Create && a.Kind != plan.Query && a.Kind != plan.RuntimeKill {
		return true
	}
	switch a.Kind {
	case plan.Create:
		if inConfig {
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
func (s *Component) create(uid types.UID) bool {
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
func (s *Component) clientDelete(a plan.Action) {
	cur, ok := s.api.ByUID(a.UID)
	if !ok {
		return
	}
	g := max(a.Grace, 0)
	s.host.Tape().Note(history.DeleteRequested{UID: a.UID, Grace: g})
	if _, seen := s.deletedAt[a.UID]; !seen {
		s.deletedAt[a.UID] = s.host.Tape().Elapsed()
	}
	_, _ = s.api.Delete("client", cur.Namespace, cur.Name,
		metav1.DeleteOptions{GracePeriodSeconds: &g, Preconditions: metav1.NewUIDPreconditions(string(a.UID))})
	if _, still := s.api.ByUID(a.UID); !still {
		s.echo[a.UID] = true // removed at once (terminal phase)
	}
}

// After tells the pod manager what config now holds for the action's pod
// (HandlePodAdditions, HandlePodUpdates, HandlePodRemoves do, before the
// pod workers hear of it; the order does not matter between steps).
func (s *Component) After(a plan.Action) {
	known, inConfig := s.host.InConfig(a.UID)
	if !known || a.UID == "" {
		return
	}
	switch {
	case a.Kind == plan.Create && inConfig:
		s.admitted[a.UID] = true
		s.mgr.Pods.AddPod(s.host.PodOf(a.UID))
	case inConfig && (a.Kind == plan.Update || a.Kind == plan.Delete || a.Kind == plan.Finish):
		s.mgr.Pods.UpdatePod(s.host.PodOf(a.UID))
	case !inConfig && (a.Kind == plan.Remove || a.Kind == plan.Vanish):
		s.mgr.Pods.RemovePod(s.host.PodOf(a.UID))
	}
}

// Active is housekeeping's restart filter with the status component on:
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
func (s *Component) Active(pod *v1.Pod) bool {
	if s.host.Workers().IsPodKnownTerminated(pod.UID) {
		return false
	}
	terminal := pod.Status.Phase == v1.PodSucceeded || pod.Status.Phase == v1.PodFailed
	if st, ok := s.mgr.GetPodStatus(pod.UID); ok && (st.Phase == v1.PodSucceeded || st.Phase == v1.PodFailed) {
		terminal = true
	}
	return !terminal || s.host.Workers().IsPodTerminationRequested(pod.UID)
}

// ManagerPhaseTerminal: the status manager holds a terminal phase for
// uid (rejectPod's Failed, TerminatePod's, natural completion's).
func (s *Component) ManagerPhaseTerminal(uid types.UID) bool {
	st, ok := s.mgr.GetPodStatus(uid)
	return ok && TerminalPhase(st.Phase)
}

// CallBegan: SyncTerminatingPod sets the status, with the kill's status
// function, before it stops anything.
func (s *Component) CallBegan(c *syncgate.Call) {
	s.ev.began(c.UID, c.Fn)
	if c.Fn == ops.SyncTerminatingPod && c.Pod != nil {
		s.mgr.SetPhase(c.Pod, "", c.StatusFn)
	}
	if c.Fn == ops.SyncTerminatedPod && s.plants.Bug == planted.EarlyTerminate {
		s.plants.Planted()
		s.terminated(c.Pod)
	}
}

// CallEnded is what the kubelet's callbacks tell the status manager as
// they return (o is what the syncer returns).
func (s *Component) CallEnded(c *syncgate.Call, o syncgate.Outcome) {
	if c.Pod == nil {
		return
	}
	switch {
	case c.Fn == ops.SyncPod && o == syncgate.ReturnTerminal:
		s.mgr.SetPhase(c.Pod, v1.PodSucceeded, nil)
	case c.Fn == ops.SyncPod && o == syncgate.ReturnOK:
		s.mgr.SetPhase(c.Pod, v1.PodRunning, nil)
	case c.Fn == ops.SyncTerminatingPod && o == syncgate.ReturnOK:
		s.mgr.Stopped(c.UID)
		s.mgr.SetPhase(c.Pod, "", nil) // the status once the containers stopped
	case c.Fn == ops.SyncTerminatedPod && o == syncgate.ReturnOK:
		if s.plants.Bug == planted.NoTerminate || s.plants.Bug == planted.EarlyTerminate {
			s.plants.Planted()
			return
		}
		s.terminated(c.Pod)
	}
}

// RecordGone: housekeeping's SyncKnownPods purged uid's record; its next
// update makes a new one (GF's predicate, explain.go).
func (s *Component) RecordGone(uid types.UID) { s.ev.recordGone(uid) }

func (s *Component) terminated(pod *v1.Pod) {
	s.ev.terminated(pod.UID)
	s.mgr.Terminated(pod)
}

// Sync is one pass of the status manager, its pods synced in order (then
// the rest in UID order: kstatus.SyncOrdered); its writes become notes.
func (s *Component) Sync(all bool, order []types.UID) {
	s.batch = s.batch[:0]
	fresh := s.mgr.Fresh()
	if all || s.plants.Bug != planted.TriggeredSyncSkipped {
		s.mgr.SyncOrdered(s.host.Context(), all, kstatus.InOrder(order))
	}
	s.judgeFresh(fresh, all)
	slices.SortStableFunc(s.batch, func(a, b apiserver.Op) int { return cmp.Compare(a.UID, b.UID) })
	for _, op := range s.batch {
		s.echo[op.UID] = true
		s.judgeWrite(op)
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

func (s *Component) onOp(op apiserver.Op) {
	if op.Actor == kstatus.Actor {
		s.batch = append(s.batch, op)
		if s.plants.Bug == planted.ReadyTerminal {
			s.plantReady(op)
		}
	}
}

// Echoes reports whether the echo move has anything to deliver.
func (s *Component) Echoes() bool {
	for uid := range s.echo {
		if _, inConfig := s.host.InConfig(uid); inConfig {
			return true
		}
	}
	return false
}

// Echoed are the UIDs whose API object changed (or left) since config
// last heard, sorted; the driver's echo move delivers each and then
// Delivered.
func (s *Component) Echoed() []types.UID { return sortedKeys(s.echo) }

// Delivered: config heard of uid's API object.
func (s *Component) Delivered(uid types.UID) { delete(s.echo, uid) }

// ByUID is uid's API object, if any.
func (s *Component) ByUID(uid types.UID) (*v1.Pod, bool) { return s.api.ByUID(uid) }

// NameHeldByOther: the API server holds, under pod's namespace and name,
// an object of another UID (the status manager's syncPod, fetching by
// name, takes it for a re-creation of pod).
func (s *Component) NameHeldByOther(pod *v1.Pod) bool {
	p, err := s.api.Get(pod.Namespace, pod.Name)
	return err == nil && p.UID != pod.UID
}

// Manager is the current real status manager (and its pod manager).
func (s *Component) Manager() *kstatus.Manager { return s.mgr }

// Describe fills in what the component knows of uid for the kubelet
// oracle: its API incarnation, admission (kp.Rejected must be set), the
// time of the first client delete, the status manager's phase, and the
// API object's phase and deletion.
func (s *Component) Describe(uid types.UID, kp *oracle.KubeletPod) {
	kp.Incarnation, kp.DeletedAt = s.incarnation[uid], s.deletedAt[uid]
	kp.Admitted = s.admitted[uid] && !kp.Rejected
	if st, ok := s.mgr.GetPodStatus(uid); ok {
		kp.StatusPhase = st.Phase
	}
	if cur, ok := s.api.ByUID(uid); ok {
		kp.InAPI, kp.APIPhase = true, cur.Status.Phase
		kp.Deleted = cur.DeletionTimestamp != nil
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
