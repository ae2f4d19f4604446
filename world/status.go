package world

import (
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/workers"
)

// The status manager and the API server model (SPEC §2, K2, K3, L7): the
// kubelet's statuses reach the API in batches, a terminal phase only once
// the pod can have no running containers, the final delete only once the
// pod is finished; API changes come back through the config watch after a
// lag.

// StatusSyncPeriod is how often the status manager writes to the API server
// (its syncPeriod batch; it also reacts to changes, which the period
// stands for here).
const StatusSyncPeriod = time.Second

// statusLoop is the status manager's goroutine: like daemonLoop, but its
// ticks run outside the sync loop (only the echoes it delivers are config
// changes), and it stops with the other daemons when the world quiesces.
// It sleeps through the settle phase's quiet ticks as they do
// (world/quiet's skip.go): with nothing to write or echo, a tick does
// nothing.
func (w *World) statusLoop() {
	for {
		w.S.Sleep(w.quiet.NextTick(w.S.Elapsed(), StatusSyncPeriod))
		if w.quiescing {
			if w.daemons--; w.daemons == 0 {
				w.daemonsDone.Fire()
			}
			return
		}
		w.statusTick()
	}
}

// statusTick is one pass of the status manager: for every pod in the API,
// write the kubelet's phase (a terminal one only once the pod can have no
// running containers, #108366), then delete a deleted pod once
// SyncTerminatedPod finished it (#115331), with the UID as precondition.
// API changes reach the config source after the echo lag (deliverEchoes,
// in the sync loop).
func (w *World) statusTick() {
	epoch := w.epoch
	for _, p := range w.inOrder {
		if !w.syncStatus(p) || w.epoch != epoch {
			break // the kubelet restarted under us: its status manager is gone
		}
	}
	w.iteration(w.deliverEchoes)
}

// syncStatus writes p's status; false if the tick must stop.
func (w *World) syncStatus(p *configPod) bool {
	uid, k := p.action.UID, w.kube
	if !p.inAPI {
		return true
	}
	st := k.statusOf(uid)
	if st.Phase != "" && st.Phase != p.apiPhase && !terminalPhase(p.apiPhase) {
		epoch := w.epoch
		if terminalPhase(st.Phase) && !w.Bugs.B10StatusIgnoresRunning && w.ask(ops.CouldHaveRunningContainers, uid) {
			w.mark(plan.MarkTerminalWriteDeferred)
			return w.epoch == epoch
		}
		if w.epoch != epoch {
			return false
		}
		w.note(history.PhaseWritten{UID: uid, Phase: st.Phase})
		p.apiPhase = st.Phase
		w.echoLater(p)
	}
	if p.deletion != nil && terminalPhase(p.apiPhase) && st.Finished {
		w.note(history.Removed{UID: uid, By: "status manager"})
		if p.rejected {
			w.mark(plan.MarkRejectedDeletedGone)
		}
		if w.epoch > 0 && p.deletedAt < w.restartedAt {
			w.mark(plan.MarkRestartDeletedGone)
		}
		p.inAPI = false
		w.leftAPI(p)
		w.echoLater(p)
	}
	return true
}

func (w *World) echoLater(p *configPod) {
	if !p.echoDue {
		p.echoDue, p.echoAt = true, w.S.Elapsed()+w.kube.node.EchoLag
	}
}

// deliverEchoes is the config watch: API changes older than the echo lag
// arrive as UPDATE (a new phase) or REMOVE (the pod was deleted).
func (w *World) deliverEchoes() {
	for _, p := range w.inOrder {
		if !p.echoDue || p.echoAt > w.S.Elapsed() {
			continue
		}
		uid := p.action.UID
		p.echoDue = false
		switch {
		case !p.inAPI && p.inConfig:
			p.inConfig = false
			w.update(workers.SyncPodKill, uid, nil)
		case p.apiPhase != p.phase && p.inConfig:
			p.phase, p.version = p.apiPhase, p.version+1
			if p.admitted {
				w.update(workers.SyncPodUpdate, uid, nil)
			}
		}
	}
}

// callBegan: a SyncPod or SyncTerminatingPod begins only in an incarnation
// that has not terminated, so whatever the status manager and the checks
// knew of a finished earlier incarnation of the UID is void.
func (k *kubelet) callBegan(w *World, fn ops.SyncFn, uid types.UID) {
	if fn == ops.SyncPod || fn == ops.SyncTerminatingPod {
		k.statusOf(uid).Finished = false
	}
	if fn == ops.SyncPod {
		w.note(history.SyncPodBegins{UID: uid})
	}
}

// callEnded is the status manager's side of a sync callback's end (the
// kubelet's SyncPod and SyncTerminatedPod call it): natural completion
// sets Succeeded; a finished pod is terminal (Failed unless something set
// a terminal phase) and may be deleted from the API.
func (k *kubelet) callEnded(fn ops.SyncFn, uid types.UID, err error, isTerminal bool) {
	if err != nil {
		return
	}
	st := k.statusOf(uid)
	switch {
	case fn == ops.SyncPod && isTerminal:
		st.Phase = v1.PodSucceeded
	case fn == ops.SyncPod:
		if !terminalPhase(st.Phase) {
			st.Phase = v1.PodRunning
		}
	case fn == ops.SyncTerminatedPod:
		if !terminalPhase(st.Phase) {
			st.Phase = v1.PodFailed
		}
		st.Finished = true
	}
}

// statusFnApplied: SyncTerminatingPod succeeded with a kill's status
// function (eviction, node shutdown), which edits the status it publishes.
func (k *kubelet) statusFnApplied(uid types.UID, fn workers.PodStatusFunc) {
	st := k.statusOf(uid)
	s := v1.PodStatus{Phase: st.Phase}
	if s.Phase == "" {
		s.Phase = v1.PodRunning
	}
	fn(&s)
	st.Phase = s.Phase
}
