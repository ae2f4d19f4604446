package world

import (
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/workers"
)

// A queued resync of a running pod that can only repeat itself. The work
// queue keeps one entry per running pod (its resync, a minute ahead), so
// a world that leaves a pod running never looked still (queueBusy) and
// settled the full SettleTime. Such a resync is a fixed point when all of
// these hold, and then its entry does not keep the world busy:
//
//   - the world is the plain one (plainWorld: no kubelet around the
//     workers, whose status manager hears of every SyncPod; no mutant,
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
	return w.plainWorld() && !w.quiet.foreignSyncer && f.TerminalRate == 0 && f.ErrorRate == 0
}

// plainWorld: the pod workers alone in the world, as written: no kubelet
// around them (its status manager and actors react to what they do), no
// mutant, kubelet bug or runtime fault mode (B16's uncancellable pull)
// switched on. The two shortcuts of the settle
// phase (repeatable resyncs, skipped quiet ticks) are argued for this
// world only; a mutant's runs, which the gate and the regression scripts
// pin down to the operation, keep every tick.
func (w *World) plainWorld() bool {
	return w.kube == nil && w.workersMutant == "" && w.Bugs == (KubeletBugs{}) &&
		w.Runtime.Faults.UncancellablePull == 0
}

// resyncConfigRepeats: uid's config, last sync and runtime state allow a
// repeat (read without the pod lock).
func (w *World) resyncConfigRepeats(uid types.UID) bool {
	p := w.pods[uid]
	last, ok := w.quiet.syncs[uid]
	return p != nil && p.inConfig && p.deletion == nil && !terminalPhase(p.phase) && !p.rejected &&
		ok && last.repeatable && last.version == p.version && w.Runtime.Running(uid) > 0
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
		if !w.resyncConfigRepeats(uid) {
			return false
		}
	}
	if w.S.Stirring(w.isTicker) {
		return false
	}
	idle := map[types.UID]bool{}
	for _, s := range w.PW.PodStates() {
		idle[s.UID] = idleInS(s)
	}
	for _, uid := range uids {
		if !idle[uid] {
			return false
		}
	}
	return true
}
