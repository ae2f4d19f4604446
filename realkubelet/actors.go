package realkubelet

import (
	"cmp"
	"context"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/kubelet"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/realkubelet/actors"
	"github.com/podsim/podsim/realkubelet/components"
	"github.com/podsim/podsim/realkubelet/explain"
	"github.com/podsim/podsim/realkubelet/finding"
	"github.com/podsim/podsim/realkubelet/killgate"
	"github.com/podsim/podsim/realkubelet/killwait"
	"github.com/podsim/podsim/realkubelet/planted"
	"github.com/podsim/podsim/realkubelet/script"
	"github.com/podsim/podsim/realkubelet/shutdown"
	"github.com/podsim/podsim/realkubelet/status"
	"github.com/podsim/podsim/realkubelet/syncgate"
	"github.com/podsim/podsim/realkubelet/tape"
)

// newActors makes the shutdown and eviction components (package actors)
// of a kubelet process around the current pod workers.
func newActors(d *Driver) *actors.Actors {
	// With the status component, its oracle judges the notes.
	a := actors.New(actorsHost{d}, d.opts.plant, d.kubeletOn() && !d.opts.Real.On(components.Status))
	a.Logind = d.logind // a restarted process keeps the run's faults
	return a
}

// startKubelet is a kubelet process's start, before it admits a pod (the
// run's first move after the mode moves, or a restart's re-add): on a
// node with graceful shutdown, its manager starts, as upstream's kubelet
// starts it.
func (d *Driver) startKubelet() {
	d.started = true
	if d.graceful != nil && d.opts.Real.On(components.Shutdown) {
		d.actors.StartManager(d.graceful)
		d.waitQuiet()
	}
}

// gracefulIn are the node's shutdown groups if the moves shut it down (the
// first Shutdown's; empty, not nil, if it has none: the manager's
// default), nil if none does. A node is taken to have graceful shutdown
// configured iff its run shuts it down: a kubelet without it builds no
// manager, and admission asks none.
func gracefulIn(moves []script.Move) []plan.ShutdownGroup {
	for _, m := range moves {
		if m.Kind == script.MoveAction && m.Action.Kind == plan.Shutdown {
			return append([]plan.ShutdownGroup{}, m.Groups...)
		}
	}
	return nil
}

// gracefulOf is gracefulIn of the plan's moves: its first Shutdown's.
func gracefulOf(p plan.Plan) []plan.ShutdownGroup {
	i := slices.IndexFunc(p.Actions, func(a plan.Action) bool { return a.Kind == plan.Shutdown })
	if i < 0 {
		return nil
	}
	return gracefulIn([]script.Move{script.PlanMove(p, i)})
}

// actorsHost is the driver as the components' host.
type actorsHost struct{ d *Driver }

func (h actorsHost) Context() context.Context    { return h.d.ctx }
func (h actorsHost) Logger() klog.Logger         { return quietLogger() }
func (h actorsHost) Tape() *tape.Tape            { return h.d.h }
func (h actorsHost) Workers() kubelet.PodWorkers { return h.d.pw }
func (h actorsHost) UIDs() []types.UID           { return h.d.sortedUniverse() }
func (h actorsHost) PodOf(uid types.UID) *v1.Pod { return h.d.podOf(uid) }
func (h actorsHost) Status() *status.Component   { return h.d.st }

func (h actorsHost) Config(uid types.UID) (known, inConfig bool, phase v1.PodPhase) {
	if p := h.d.pods[uid]; p != nil {
		return true, p.inConfig, p.phase
	}
	return false, false, ""
}

// kubeletOn: the shutdown or eviction component runs, so the kubelet-level
// oracle judges the run (the status component's, if it runs too).
func (d *Driver) kubeletOn() bool {
	return d.opts.Real.On(components.Shutdown) || d.opts.Real.On(components.Eviction)
}

// deliver performs the first parked kill request for uid as killNow
// performs killPodNow's: recorded, with a completion channel the driver
// watches and a relay to killPodNow's own, and its wait recorded as a
// killPodNow call that returns when the manager's killPodNow does.
func (d *Driver) deliver(uid types.UID) {
	var r *killgate.Request
	for _, p := range d.actors.Kills.Pending() {
		if p.UID == uid && r == nil {
			r = p
		}
	}
	d.actors.Kills.Take(r)
	ko := r.Opts.KillPodOptions
	if ko.Evict {
		d.evicted[uid] = true
	}
	before := d.answersOf(uid)
	c := &completion{id: d.deadCompletions + len(d.completions) + 1, uid: uid, ch: make(chan struct{}), step: d.Step,
		finishedBefore: before[explain.BeFinished] && before != explain.UnknownAfterSync}
	d.completions = append(d.completions, c)
	theirs := ko.CompletedCh
	ko.CompletedCh = c.ch
	d.updatePod(r.Opts, c.id, "driver")
	d.waits.Relay(c.ch, theirs)
	r.Release()
	d.waits.Add(killwait.Go(r.Wait), c.id, uid, 0)
}

// settleActors lets the managers finish within the settle phase: parked
// kills are delivered, parked callbacks succeed, and time passes until
// the shutdown's processing ended (its groups' graces are bounded).
func (d *Driver) settleActors() { d.settleUntil(d.actors.Idle) }

// settleUntil makes settle moves, and lets time pass when there is none,
// until done holds (at most 1,000 times).
func (d *Driver) settleUntil(done func() bool) {
	for i := 0; i < 1000; i++ {
		if d.settleOne() {
			continue
		}
		if done() {
			return
		}
		time.Sleep(time.Second)
		d.waitQuiet()
		d.pollFires()
		d.waits.Poll()
		d.actors.Poll()
	}
}

// settleOne makes one settle move if one is possible: a wake, a kill
// delivery, a successful release.
func (d *Driver) settleOne() bool {
	if wakes := d.gates.Wakes(); len(wakes) > 0 {
		return d.Apply(script.Move{Kind: script.MoveWake, UID: wakes[0]})
	}
	if kills := d.actors.PendingKills(); len(kills) > 0 {
		return d.Apply(script.Move{Kind: script.MoveDeliver, UID: kills[0]})
	}
	if parked := d.gates.Parked(); len(parked) > 0 {
		return d.Apply(script.Move{Kind: script.MoveRelease, UID: parked[0].UID, Outcome: syncgate.ReturnOK})
	}
	return false
}

// teardownActors ends the managers before the teardown proper: parked
// kills are performed unrecorded, parked callbacks released, and time
// passes until the shutdown's processing ended; then its event loop ends.
func (d *Driver) teardownActors() {
	a := d.actors
	for range 1000 {
		for _, r := range a.Kills.Pending() {
			a.Kills.Take(r)
			d.pw.UpdatePod(d.ctx, r.Opts)
			r.Release()
		}
		d.drainParked()
		if a.Idle() && a.Kills.Open() == 0 {
			break
		}
		time.Sleep(time.Second)
		d.waitQuiet()
	}
	if a.Shutdown != nil {
		a.Shutdown.Stop()
		d.waitQuiet()
	}
}

// noteSyncPod records that SyncPod is about to begin (K4's second half
// and K5's first judge it against the view: a SyncPod that creates
// containers). A SyncPod whose phase is already terminal is not noted:
// upstream's SyncPod computes the phase first (generateAPIPodStatus keeps a
// terminal phase of the status manager or of the API) and returns
// isTerminal before it sets anything up, so it creates no containers
// (docs/real-kubelet.md, the shutdown component).
func (d *Driver) noteSyncPod(c *syncgate.Call) {
	if (d.kubeletOn() || d.st != nil) && c.Fn == ops.SyncPod && !d.syncPodEndsTerminal(c) {
		d.h.Note(history.SyncPodBegins{UID: c.UID})
		d.k5.SyncPodNoted(c.UID, d.h.Seq, d.actors.AddedInShutdown[c.UID])
	}
}

// syncPodEndsTerminal: the phase SyncPod computes for c's pod is terminal,
// the pod's own (the config's, i.e. the API's) or the status manager's.
func (d *Driver) syncPodEndsTerminal(c *syncgate.Call) bool {
	if d.opts.plant == planted.NoteEveryRealSyncPod || c.Pod == nil {
		return false
	}
	if status.TerminalPhase(c.Pod.Status.Phase) {
		return true
	}
	return d.st != nil && d.st.ManagerPhaseTerminal(c.UID)
}

// kubeletFindings are the kubelet-level oracle's violations, unexplained
// but for a K5 that GH's or GI's predicate explains (k5class).
func (d *Driver) kubeletFindings() []finding.Finding {
	if d.actors.Check == nil {
		return nil
	}
	var out []finding.Finding
	for _, v := range d.actors.Check.Finish(d.View(), nil) {
		out = append(out, finding.Finding{Violation: v, Step: d.stepOf(v.Seq), Class: d.kubeletClass(v)})
	}
	return out
}

// checkActors reports P6 for the kubelet process's eviction turns
// (Actors.EvictionMisses), K8 for its eviction and shutdown kills
// (Actors.DisruptionMisses) and P7 for its logind restart
// (Actors.LogindProblems), its inhibit locks (a lock held while logind
// shuts the node down with no processing left: LingeringLock), its
// admission with no shutdown in force and a shutdown sent to it holding
// no lock (ShutdownProblems), and its shutdowns' kills (KillProblems):
// when the settle phase ends, and before a restart replaces the process.
func (d *Driver) checkActors() {
	for _, msg := range d.actors.EvictionMisses() {
		d.report("conform", "P6", "", msg)
	}
	for _, msg := range d.actors.DisruptionMisses() {
		d.report("kubelet", "K8", "", msg)
	}
	for _, msg := range d.actors.LogindProblems() {
		d.report("conform", "P7", "", "logind: "+msg)
	}
	for _, msg := range d.actors.ShutdownProblems() {
		d.report("conform", "P7", "", msg)
	}
	for _, msg := range d.actors.KillProblems() {
		d.report("conform", "P7", "", msg)
	}
	if msg, unheard := d.actors.LingeringLock(); msg != "" {
		class := ""
		if unheard {
			class = "GK" // its start's lock (docs/upstream-findings.md)
		}
		d.report("conform", "P7", class, msg)
	}
	for _, p := range d.actors.LockProblems() {
		class := ""
		if p.Stale {
			class = "GJ" // upstream's stale m.inhibitLock (docs/upstream-findings.md)
		}
		d.report("conform", "P7", class, p.Msg)
	}
}

// modeMoves are the moves that set a mode of the run: they come before
// any other move, each once, and before the kubelet starts (startKubelet).
var modeMoves = []script.MoveKind{script.MoveHoldWakes, script.MoveLogindRestart, script.MoveLogindDelay}

// onlyModeMoves: every move so far is a mode move, none of them k.
func (d *Driver) onlyModeMoves(k script.MoveKind) bool {
	for _, m := range d.Moves {
		if m.Kind == k || !slices.Contains(modeMoves, m.Kind) {
			return false
		}
	}
	return true
}

// logindMode is the logind-restart move: from now on every node
// shutdown manager of the run, this process's and a restarted one's, has
// logind restart under it before its shutdown event. It panics on a
// kubelet that cannot (realrun and the tests never hand it one).
//
// The logind-delay move: from now on logind's inhibit delay starts short
// of every manager's groups, so each overrides it (shutdown.Config's
// ShortDelay). Any kubelet can.
func (d *Driver) logindMode(m script.Move) {
	if m.Kind == script.MoveLogindDelay {
		d.logind.Delay = cmp.Or(m.Fault, script.LogindApplies[0])
	} else if err := shutdown.RestartSupported(); err != nil {
		panic("the logind-restart move: " + err.Error())
	} else {
		d.logind.Restart, d.logind.FailAt = true, m.Fault
	}
	d.actors.Logind = d.logind
}
