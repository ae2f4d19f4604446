package world

import (
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/workers"
)

// The node shutdown manager (pkg/kubelet/nodeshutdown, SPEC §2, K5): on a
// shutdown it closes admission, takes one snapshot of the active pods and
// kills them group by group, in ascending priority, all pods of a group in
// parallel (killPodNow, evict=false, grace min(group grace, spec grace)),
// each group given its grace period before the next one starts. Its one
// event loop reads logind's signals in order: a cancellation that comes
// while a shutdown's processing runs is read when it returns (the kills
// are not stopped), and reopens admission; the next shutdown begins
// afresh. Logind sends no second "shutting down" before a cancellation
// was read, so a Shutdown action then changes nothing. The shutdown is
// the node's: a kubelet restarted during it learns of it at its start
// (restart.go; World.nodeShutdown, which a ShutdownCancel clears at once,
// whoever reads it).

// shuttingDown: a node shutdown is in force (admission is closed): one
// began in this process and it read no cancellation of it, or the process
// started during one (learned).
func (k *kubelet) shuttingDown() bool { return k.shutdownAt != unset && !k.cancelled || k.learned }

// shutdown is the Shutdown action, in a goroutine of its own, for kubelet
// k of epoch (the process running when the action came): it does nothing
// once that kubelet restarted, or while a shutdown is in force.
func (w *World) shutdown(k *kubelet, epoch int) {
	if k == nil || w.epoch != epoch || k.shuttingDown() {
		return
	}
	if k.shutdownAt != unset {
		w.mark(plan.MarkShutdownAgain)
	}
	k.shutdownAt, k.shutdownBusy, k.cancelled = w.S.Elapsed(), true, false
	w.nodeShutdown, w.nodeShutdownAt = true, k.shutdownAt
	snapshot := w.activePods("")
	if w.epoch != epoch {
		return // the kubelet restarted: this shutdown manager is gone
	}
	w.note(history.ShutdownBegins{Active: snapshot})
	groups := k.node.ShutdownGroups
	if len(groups) == 0 {
		groups = []plan.ShutdownGroup{{Priority: 0, Grace: 30}}
	}
	fn := w.shutdownStatusFn()
	for i, g := range groups {
		members := groupMembers(w, snapshot, groups, i)
		if len(members) == 0 {
			continue
		}
		done, left := w.S.NewEvent(fmt.Sprintf("shutdown/group%d", i)), len(members)
		for _, uid := range members {
			if w.epoch != epoch {
				return // the kubelet restarted between two kills: the manager went with its process
			}
			grace := min(g.Grace, w.pod(uid).action.SpecGrace)
			if w.pod(uid).action.Priority != g.Priority {
				w.mark(plan.MarkShutdownOffGroup)
			}
			w.note(history.ShutdownKill{UID: uid, StatusFn: fn})
			w.goActor("shutdown-kill", func() {
				if w.killPodNowWith(plan.Action{UID: uid, Grace: grace}, fn, epoch) {
					w.mark(plan.MarkShutdownKilled)
				}
				if left--; left == 0 {
					done.Fire()
				}
			})
		}
		if !done.WaitFor(time.Duration(g.Grace) * time.Second) {
			w.mark(plan.MarkShutdownGroupGraceOver)
		}
		if w.epoch != epoch {
			return
		}
	}
	w.note(history.ShutdownDone{})
	k.shutdownBusy = false
	if k.cancelPending {
		w.mark(plan.MarkCancelDuringShutdown)
		w.cancelShutdown(k)
	}
}

// shutdownCancel is the ShutdownCancel action for the kubelet running
// now: the manager's loop reads it at once, or when the shutdown's
// processing returns; no shutdown in force, nothing to cancel.
func (w *World) shutdownCancel(k *kubelet) {
	w.nodeShutdown = false // logind withdrew it, whoever reads that
	switch {
	case k != nil && k.learned && k.shutdownAt == unset:
		k.learned = false // a process that only learned of it at its start: admission reopens
	case k == nil || !k.shuttingDown():
	case k.shutdownBusy:
		k.cancelPending = true
	default:
		w.cancelShutdown(k)
	}
}

// cancelShutdown: the manager reads the cancellation and reopens
// admission.
func (w *World) cancelShutdown(k *kubelet) {
	k.cancelPending, k.cancelled = false, true
	w.note(history.ShutdownCancelled{})
	w.mark(plan.MarkShutdownCancelled)
}

// groupMembers lists the pods of snapshot in group i: the last group whose
// priority is at most the pod's (the first group takes any lower one).
func groupMembers(w *World, snapshot []types.UID, groups []plan.ShutdownGroup, i int) []types.UID {
	var out []types.UID
	for _, uid := range snapshot {
		prio, g := w.pod(uid).action.Priority, 0
		for j := range groups {
			if groups[j].Priority <= prio {
				g = j
			}
		}
		if g == i {
			out = append(out, uid)
		}
	}
	return out
}

// shutdownStatusFn is the shutdown manager's status function: Failed unless
// the pod already Succeeded (#104531; B4 leaves the phase alone).
func (w *World) shutdownStatusFn() workers.PodStatusFunc { return ShutdownStatusFn(w.Bugs) }

// ShutdownStatusFn is the node shutdown kill's status function of a
// kubelet with bugs (B4 keeps the phase); the real-goroutine baseline
// uses it too.
func ShutdownStatusFn(bugs KubeletBugs) workers.PodStatusFunc {
	keepPhase := bugs.B4ShutdownKeepsPhase
	return func(s *v1.PodStatus) {
		if !keepPhase && s.Phase != v1.PodSucceeded {
			s.Phase = v1.PodFailed
		}
		s.Reason, s.Message = "Terminated", "Pod was terminated in response to imminent node shutdown."
	}
}
