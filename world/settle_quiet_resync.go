package world

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/workers"
)

// A queued resync of a running pod that can only repeat itself. The work
// queue keeps one entry per running pod (its resync, a minute ahead), so
// a world that leaves a pod running never looked still (queueBusy) and
// settled the full SettleTime. Such a resync is a fixed point when all of
// these hold, and then its entry does not keep the world busy:
//
//   - the world runs the code as written (shortcutWorld: no mutant,
//     kubelet bug or runtime fault mode), and the pod workers call the
//     world's own fake runtime (not a test's wrapper);
//   - the fake runtime can only repeat: natural completion is off
//     (TerminalRate 0; a resync could otherwise end the pod) and errors
//     are healed (ErrorRate 0 in the settle phase). What the fault stream
//     can still choose is a delay, and nothing can cancel it;
//   - the config is that of the last sync: the pod is in config, not
//     deleted, not terminal, and its version is the one the last SyncPod
//     of the pod began with; that SyncPod succeeded without reporting
//     natural completion, no other call for the pod followed it, and the
//     runtime runs the pod;
//   - the worker is idle in S: started, no termination requested, not
//     working, no call in flight, no pending update, no kill waiting,
//     no restart requested, and its worker goroutine is there to take
//     the next update.
//
//   - in the kubelet's world (kubeResyncRepeats): the pod was admitted,
//     the status manager holds Running for it and has nothing left to
//     write (the API holds Running too, no watch echo is due), so the
//     repeated SyncPod's end sets Running again; its SyncPodBegins note
//     meets the kubelet oracle's K4/K5 rules with the flags the first
//     SyncPod met (admitted, first added before any shutdown), which
//     cannot change in the settle phase, and the status manager's
//     tick after it finds nothing to write.
//
// Then the resync is UpdatePod(sync) with the same pod into the same
// record, so it runs the same SyncPod with the same outcome and puts the
// same entry back: it can change nothing the oracles judge.
// TestQuietSettleSameVerdict and TestQuietSettlePlanted compare the
// verdicts with the full settle phase; TestQuietSettleWrongResyncRule
// shows that dropping the conditions on the syncer changes verdicts.

// lastSyncPod is the last sync call the runtime saw for a pod.
type lastSyncPod struct {
	version int
	// repeatable: it was a SyncPod, it ended, succeeded and did not report
	// natural completion.
	repeatable bool
}

// noteCallBegin records a sync call beginning (observe.go's CallBegin).
func (q *quietness) noteCallBegin(fn string, uid types.UID, version int) {
	if q.syncs == nil {
		q.syncs = map[types.UID]lastSyncPod{}
	}
	if fn != "SyncPod" {
		delete(q.syncs, uid)
		return
	}
	q.syncs[uid] = lastSyncPod{version: version}
}

// noteCallEnd records a sync call's outcome (observe.go's CallEnd).
func (q *quietness) noteCallEnd(fn string, uid types.UID, err error, isTerminal bool) {
	s, ok := q.syncs[uid]
	if !ok || fn != "SyncPod" {
		return
	}
	s.repeatable = err == nil && !isTerminal
	q.syncs[uid] = s
}

// resyncsCanRepeat: the world-wide conditions of a repeatable resync.
func (w *World) resyncsCanRepeat() bool {
	if w.quiet.carelessResync {
		return true
	}
	f := w.Runtime.Faults
	return w.shortcutWorld() && !w.quiet.foreignSyncer && f.TerminalRate == 0 && f.ErrorRate == 0
}

// shortcutWorld: the world runs the code as written: no mutant, kubelet bug
// or runtime fault mode (B16's uncancellable pull) switched on. The
// shortcuts of the settle phase (repeatable resyncs, skipped quiet and idle
// ticks) are argued for this world only; a mutant's runs, which the gate
// and the regression scripts pin down to the operation, keep every tick.
func (w *World) shortcutWorld() bool {
	return w.quiet.mutantShortcuts ||
		(w.workersMutant == "" && w.Bugs == (KubeletBugs{}) && w.Runtime.Faults.UncancellablePull == 0)
}

// resyncConfigRepeats: uid's config, last sync and runtime state allow a
// repeat (read without the pod lock).
func (w *World) resyncConfigRepeats(uid types.UID) bool {
	p := w.pods[uid]
	last, ok := w.quiet.syncs[uid]
	return p != nil && p.inConfig && p.deletion == nil && !terminalPhase(p.phase) && !p.rejected &&
		ok && last.repeatable && last.version == p.version && w.Runtime.Running(uid) > 0 && w.kubeResyncRepeats(p)
}

// kubeResyncRepeats: the kubelet around the workers (if any) would meet
// the repeated SyncPod as it met the last one: the pod is admitted, and
// the status manager holds Running with nothing to write or echo.
func (w *World) kubeResyncRepeats(p *configPod) bool {
	k := w.kube
	if k == nil {
		return true
	}
	st := k.status[p.action.UID]
	published := !k.node.APIServer || (p.inAPI && p.apiPhase == v1.PodRunning && !p.echoDue) || (p.action.Static && !p.inAPI && !p.echoDue)
	return p.admitted && !p.addedInShutdown && st != nil && st.Phase == v1.PodRunning && !st.Finished && published
}

// idleInS: the worker's record is idle in S with nothing waiting.
func idleInS(s workers.PodStateSnapshot) bool {
	return s.State == "S" && s.Started && !s.TerminationRequested && !s.Working && !s.InFlight &&
		!s.HasPendingUpdate && s.PendingKills == 0 && !s.RestartRequested && s.HasWorker
}

// resyncsRepeat: every pod of uids has a queued resync that can only
// repeat. It reads the records through PodStates (a scheduling point, so
// it asks Stirring first and the caller asks it again).
func (w *World) resyncsRepeat(uids []types.UID) bool {
	if !w.resyncsCanRepeat() {
		return false
	}
	for _, uid := range uids {
		if !w.resyncConfigRepeats(uid) && !w.retryConfigRepeats(uid) {
			return false
		}
	}
	if w.S.Stirring(w.isTicker) {
		return false
	}
	idle, waiting := map[types.UID]bool{}, map[types.UID]string(nil)
	for _, s := range w.PW.PodStates() {
		idle[s.UID] = idleInS(s)
		if waitingIdle(s) {
			if waiting == nil {
				waiting = map[types.UID]string{}
			}
			waiting[s.UID] = s.FullName
		}
	}
	var waiters map[types.UID]string
	for _, uid := range uids {
		name, isWaiting := waiting[uid]
		switch {
		case idle[uid] && w.resyncConfigRepeats(uid):
		case isWaiting && w.retryConfigRepeats(uid):
			if waiters == nil {
				waiters = map[types.UID]string{}
			}
			waiters[uid] = name
		default:
			return false
		}
	}
	if len(waiters) > 0 && !w.retriesRepeat(waiters, idle) {
		return false
	}
	if len(waiters) > 0 {
		w.quiet.proven = map[types.UID]bool{}
		for uid := range waiters {
			w.quiet.proven[uid] = true
		}
	}
	return true
}
