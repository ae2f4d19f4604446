package world

import (
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/oracle"
	"github.com/podsim/podsim/workers"
)

// unset marks a moment that has not happened (virtual time starts at 0).
const unset = time.Duration(-1)

// RetryWithin is the longest the world takes to retry a pod: a jittered
// error backoff (≤ 1.5 × 10 s, also a refused static waiter's), the sync
// loop's tick turning it into UpdatePod(sync), and a housekeeping period
// for pods only housekeeping drives (orphans). The liveness oracle does not
// judge obligations younger than this when the inputs stopped.
const RetryWithin = workers.DefaultBackoffPeriod*3/2 + SyncLoopPeriod + HousekeepingPeriod

// ResyncInterval and BackoffPeriod are the pod workers' re-sync periods
// (SPEC §1.8 step 5): the world hands them none, so the documented defaults
// apply. TransientBackoff is the delay after a network-not-ready error, the
// kubelet's backOffOnTransientErrorPeriod, which no caller configures. The
// requeue-delay check judges each requeue against them.
const (
	ResyncInterval   = workers.DefaultResyncInterval
	BackoffPeriod    = workers.DefaultBackoffPeriod
	TransientBackoff = time.Second
)

// View is what the oracles read of the world (oracle.View): the settle
// phase's timing, the config source, and the kubelet with its API server when the
// plan has a Node. The pod workers' query answers are in the history
// (probe.go).
func (w *World) View() oracle.View { return worldView{w} }

type worldView struct{ w *World }

func (v worldView) Settle() *oracle.Settle                { return v.w.settleTimes }
func (v worldView) Elapsed() time.Duration                { return v.w.S.Elapsed() }
func (v worldView) Config(uid types.UID) oracle.PodConfig { return v.w.configOf(uid) }

func (v worldView) Kubelet() oracle.Kubelet {
	if v.w.kube == nil {
		return nil
	}
	return kubeletView(v)
}

// kubeletView is the kubelet around the pod workers and the API server.
type kubeletView struct{ w *World }

func (k kubeletView) UIDs() []types.UID { return k.w.sortedUIDs() }
func (k kubeletView) APIServer() bool   { return k.w.kube.node.APIServer }
func (k kubeletView) ShutdownAt() time.Duration {
	if k.w.kube.shutdownAt == unset && k.w.nodeShutdown {
		return k.w.nodeShutdownAt // begun in an earlier process
	}
	return k.w.kube.shutdownAt
}

func (k kubeletView) ShuttingDown() bool { return k.w.kube.shuttingDown() }

func (k kubeletView) Pod(uid types.UID) oracle.KubeletPod {
	p := k.w.pod(uid)
	if p == nil {
		return oracle.KubeletPod{}
	}
	out := oracle.KubeletPod{Name: p.action.PodName(), Incarnation: p.created, InConfig: p.inConfig, Phase: p.phase,
		Deleted: p.deletion != nil, Admitted: p.admitted, Rejected: p.rejected, AddedInShutdown: p.addedInShutdown,
		FirstAddAt: p.firstAddAt, InAPI: p.inAPI, APIPhase: p.apiPhase, DeletedAt: p.deletedAt}
	if st := k.w.kube.status[uid]; st != nil {
		out.StatusPhase = st.Phase
	}
	return out
}
