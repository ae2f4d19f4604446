package world

import (
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/workers"
	"github.com/podsim/podsim/world/quiet"
)

// The settle phase's early end (package world/quiet holds the argument):
// housekeeping's ticks in the settle phase ask w.quiet whether the world
// is quiescent, and it reads the world through settleView.
//
// Extending it: an actor that can still change something while every
// worker is idle (a daemon with its own timers, a retry, a lagging status
// write) appends a predicate that reports it still busy,
//
//	w.busy = append(w.busy, func() bool { return len(m.pending) > 0 })
//
// and an actor with a periodic daemon names the daemon's goroutine in
// w.tickers, so that its period timer does not count as stirring, and
// sleeps between its ticks with w.quiet.NextTick, so that it sleeps
// through the quiet ticks with the others (world/quiet's skip.go). A
// predicate may read the world and the actor's own state; it must not run
// a simulation operation (it runs inside housekeeping's sync-loop
// iteration, and checking should not change the schedule; the one
// exception is the work queue's lock, taken last, once nothing stirs).

// QuietFor is how long the world must stay still to be quiescent: longer
// than any obligation the liveness oracle excuses at QuiesceAt.
const QuietFor = RetryWithin + HousekeepingPeriod

// settleQuietly waits up to d for the world to go quiet; it reports
// whether it did (the settle phase may end early).
func (w *World) settleQuietly(d time.Duration) bool {
	w.quietEvent = w.fixedEvent(&w.fixed.quiet, "settle/quiet")
	w.quiet.Begin(settleView{w}, w.S.Elapsed(), d, QuietFor)
	return w.quietEvent.WaitFor(d)
}

// housekeepingTick is the housekeeping daemon's tick: HandlePodCleanups,
// then, in the settle phase, the check for quiescence.
func (w *World) housekeepingTick() {
	w.housekeeping()
	if w.quiet.Watching() && w.quiet.Tick() {
		w.quietEvent.Fire()
	}
}

// isTicker reports the world's periodic daemons and the driver (waiting
// for the end of the settle phase): their timers are not work.
func (w *World) isTicker(goroutine string) bool {
	switch goroutine {
	case "driver", "syncloop", "housekeeping":
		return true
	}
	return slices.Contains(w.tickers, goroutine)
}

// settleView is what w.quiet reads of the world (quiet.World).
type settleView struct{ w *World }

func (v settleView) Elapsed() time.Duration { return v.w.S.Elapsed() }
func (v settleView) Now() time.Time         { return v.w.S.Now() }
func (v settleView) Stirring() bool         { return v.w.S.Stirring(v.w.isTicker) }

// Busy: a killPodNow is in progress, or an actor's predicate says busy.
func (v settleView) Busy() bool {
	return v.w.killNow.Len() > 0 || slices.ContainsFunc(v.w.busy, func(busy func() bool) bool { return busy() })
}

func (v settleView) Entries(buf []workers.QueueEntry) []workers.QueueEntry {
	return v.w.Queue.AppendEntries(buf)
}
func (v settleView) PodStates() []workers.PodStateSnapshot { return v.w.PW.PodStates() }
func (v settleView) Holder(fullName string) types.UID      { return v.w.PW.StaticPodState(fullName).Started }
func (v settleView) AsWritten() bool                       { return v.w.asWritten() }
func (v settleView) RuntimeRepeats() bool                  { return v.w.runtimeRepeats() }
func (v settleView) Config(uid types.UID) quiet.Config     { return v.w.quietConfig(uid) }

// asWritten: no mutant, kubelet bug or runtime fault mode (B16's
// uncancellable pull) is switched on (quiet.World.AsWritten).
func (w *World) asWritten() bool {
	return w.workersMutant == "" && w.Bugs == (KubeletBugs{}) && w.Runtime.Faults.UncancellablePull == 0
}

// runtimeRepeats: the pod workers call the world's own fake runtime, with
// natural completion off and errors healed (quiet.World.RuntimeRepeats).
func (w *World) runtimeRepeats() bool {
	f := w.Runtime.Faults
	return !w.foreignSyncer && f.TerminalRate == 0 && f.ErrorRate == 0
}

// quietConfig is what the config source, the runtime and the kubelet hold
// of uid for the quiet rules (read without the pod lock).
func (w *World) quietConfig(uid types.UID) quiet.Config {
	p := w.pod(uid)
	if p == nil {
		return quiet.Config{}
	}
	return quiet.Config{InConfig: p.inConfig, Static: p.action.Static, Version: p.version,
		Steady: p.inConfig && p.deletion == nil && !terminalPhase(p.phase) && !p.rejected && (w.kube == nil || p.admitted),
		Runs:   w.Runtime.Running(uid) > 0 && w.kubeResyncRepeats(p)}
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
