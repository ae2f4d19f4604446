package quiet

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
//   - the world runs the code as written (World.AsWritten: no mutant,
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
//   - in the kubelet's world (Config.Runs; the world's kubeResyncRepeats):
//     the pod was admitted, the status manager holds Running for it and
//     has nothing left to write (the API holds Running too, no watch echo
//     is due), so the repeated SyncPod's end sets Running again; its
//     SyncPodBegins note meets the kubelet oracle's K4/K5 rules with the
//     flags the first SyncPod met (admitted, first added before any
//     shutdown), which cannot change in the settle phase, and the status
//     manager's tick after it finds nothing to write.
//
// Then the resync is UpdatePod(sync) with the same pod into the same
// record, so it runs the same SyncPod with the same outcome and puts the
// same entry back: it can change nothing the oracles judge.
// TestQuietSettleSameVerdict and TestQuietSettlePlanted (run) compare the
// verdicts with the full settle phase; TestQuietSettleWrongResyncRule
// shows that dropping the conditions on the syncer changes verdicts.

// lastSyncPod is the last sync call the runtime saw for a pod.
type lastSyncPod struct {
	version int
	// repeatable: it was a SyncPod, it ended, succeeded and did not report
	// natural completion.
	repeatable bool
}

// NoteCallBegin records a sync call beginning (fn, the Syncer method's
// name; version, the config version of the pod it was given).
func (q *Watch) NoteCallBegin(fn string, uid types.UID, version int) {
	if q.syncs == nil {
		q.syncs = map[types.UID]lastSyncPod{}
	}
	if fn != "SyncPod" {
		delete(q.syncs, uid)
		return
	}
	q.syncs[uid] = lastSyncPod{version: version}
}

// NoteCallEnd records a sync call's outcome.
func (q *Watch) NoteCallEnd(fn string, uid types.UID, err error, isTerminal bool) {
	s, ok := q.syncs[uid]
	if !ok || fn != "SyncPod" {
		return
	}
	s.repeatable = err == nil && !isTerminal
	q.syncs[uid] = s
}

// canRepeat: the world-wide conditions of a repeatable resync.
func (q *Watch) canRepeat() bool {
	if q.Rules.CarelessResync {
		return true
	}
	return q.shortcuts() && q.world.RuntimeRepeats()
}

// resyncRepeats: uid's config (c), last sync and runtime state allow a
// repeat.
func (q *Watch) resyncRepeats(uid types.UID, c Config) bool {
	last, ok := q.syncs[uid]
	return c.Steady && ok && last.repeatable && last.version == c.Version && c.Runs
}

// idleInS: the worker's record is idle in S with nothing waiting.
func idleInS(s workers.PodStateSnapshot) bool {
	return s.State == "S" && s.Started && !s.TerminationRequested && !s.Working && !s.InFlight &&
		!s.HasPendingUpdate && s.PendingKills == 0 && !s.RestartRequested && s.HasWorker
}

// entriesRepeat: every pod of uids has a queued resync, or a static
// waiter's retry, that can only repeat. It reads the records through
// PodStates (a scheduling point, so it asks Stirring first and the caller
// asks it again).
func (q *Watch) entriesRepeat(uids []types.UID) bool {
	if !q.canRepeat() {
		return false
	}
	w := q.world
	for _, uid := range uids {
		if c := w.Config(uid); !q.resyncRepeats(uid, c) && !q.retryRepeats(uid, c) {
			return false
		}
	}
	if w.Stirring() {
		return false
	}
	idle, waiting := map[types.UID]bool{}, map[types.UID]string(nil)
	for _, s := range w.PodStates() {
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
		c := w.Config(uid)
		name, isWaiting := waiting[uid]
		switch {
		case idle[uid] && q.resyncRepeats(uid, c):
		case isWaiting && q.retryRepeats(uid, c):
			if waiters == nil {
				waiters = map[types.UID]string{}
			}
			waiters[uid] = name
		default:
			return false
		}
	}
	if len(waiters) > 0 && !q.retriesRepeat(waiters, idle) {
		return false
	}
	if len(waiters) > 0 {
		q.proven = map[types.UID]bool{}
		for uid := range waiters {
			q.proven[uid] = true
		}
	}
	return true
}
