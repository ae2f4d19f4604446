package realkubelet

import (
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"k8s.io/kubernetes/pkg/kubelet"
	"k8s.io/kubernetes/pkg/kubelet/eviction"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model"
	"github.com/podsim/podsim/oracle"
	kubeletoracle "github.com/podsim/podsim/oracle/kubelet"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/realkubelet/components"
	"github.com/podsim/podsim/realkubelet/evictmgr"
	"github.com/podsim/podsim/realkubelet/finding"
	"github.com/podsim/podsim/realkubelet/killgate"
	"github.com/podsim/podsim/realkubelet/podworkers"
	"github.com/podsim/podsim/realkubelet/script"
	"github.com/podsim/podsim/realkubelet/shutdown"
	"github.com/podsim/podsim/realkubelet/syncgate"
)

// actors are the real kubelet managers around the pod workers that the
// driver runs (package components): the node shutdown manager (package
// shutdown) and the eviction manager (eviction.go). Their kills go through
// the real killPodNow and park at the kill gate until a "deliver" move.
type actors struct {
	kills *killgate.Gate
	// noted: the kill requests already recorded (ShutdownKill notes).
	noted map[*killgate.Request]bool
	// shutdown is the node shutdown manager once a shutdown began.
	shutdown     *shutdown.Manager
	shutdownAt   time.Duration
	shutdownDone bool
	// What the kubelet's view says of each pod (oracle.KubeletPod).
	admitted, rejected, addedInShutdown map[types.UID]bool
	firstAddAt                          map[types.UID]time.Duration
	// bareKilled: the UID's termination was requested in the workers only
	// by a remove of a pod out of config (admit, noteRemove).
	bareKilled map[types.UID]bool
	// evict is the eviction manager once an Evict came (evict.go);
	// finished is ShouldPodBeFinished per UID as of the last step.
	evict *evictmgr.Manager
	// evictRanked is the pod ranked first in each turn; evictBusy counts
	// Evict actions that came while a turn ran (coverage_test.go).
	evictRanked []string
	evictBusy   int
	mu          sync.Mutex
	finished    map[types.UID]bool
	// check is the kubelet-level oracle (K5 among others), fed every event
	// when a component is on; nil otherwise.
	check oracle.Oracle
}

func newActors(d *Driver) *actors {
	f := func(pw kubelet.PodWorkers) eviction.KillPodFunc {
		return podworkers.KillPodNow(d.ctx, pw, &record.FakeRecorder{})
	}
	a := &actors{kills: killgate.New(d.pw, f), noted: map[*killgate.Request]bool{},
		admitted: map[types.UID]bool{}, rejected: map[types.UID]bool{}, addedInShutdown: map[types.UID]bool{},
		firstAddAt: map[types.UID]time.Duration{}, bareKilled: map[types.UID]bool{}}
	if d.kubeletOn() && !d.opts.Real.On(components.Status) {
		a.check = kubeletoracle.New() // with it, the status component's oracle judges the notes
	}
	return a
}

// kubeletOn: the shutdown or eviction component runs, so the kubelet-level
// oracle judges the run (the status component's, if it runs too).
func (d *Driver) kubeletOn() bool {
	return d.opts.Real.On(components.Shutdown) || d.opts.Real.On(components.Eviction)
}

// startShutdown is the Shutdown action with the real manager: built with
// the plan's groups (the world's default, one group of 30 s, if it has
// none), started, and triggered. The active pods are snapshotted now,
// which is when the manager asks (processShutdownEvent runs right after
// the event, with no gate in between).
func (d *Driver) startShutdown(groups []plan.ShutdownGroup) {
	a := d.actors
	if a.shutdown != nil {
		return // one shutdown per node
	}
	if len(groups) == 0 {
		groups = []plan.ShutdownGroup{{Priority: 0, Grace: 30}}
	}
	var gs []shutdown.Group
	for _, g := range groups {
		gs = append(gs, shutdown.Group{Priority: g.Priority, Grace: g.Grace})
	}
	active, kill := d.activePods(), a.kills.KillPodFunc("shutdown")
	if d.opts.plant == plantShutdownKeepsPhase {
		kill = keepPhase(kill)
	}
	m, err := shutdown.Start(d.ctx, shutdown.Config{Groups: gs, Kill: kill,
		ActivePods: func() []*v1.Pod { return active }, Logger: quietLogger()})
	if err != nil {
		panic(err) // the pinned kubelet's manager no longer fits (shutdown_test.go says how)
	}
	a.shutdown, a.shutdownAt = m, d.h.Elapsed()
	var uids []types.UID
	for _, p := range active {
		uids = append(uids, p.UID)
	}
	d.h.Note(history.ShutdownBegins{Active: uids})
	m.Trigger()
}

// activePods is the kubelet's GetActivePods (filterOutInactivePods, a
// *Kubelet method, restated): the pods handed to the pod workers and
// still in config, minus those known terminated and those whose phase is
// terminal unless their termination was requested; by UID.
func (d *Driver) activePods() []*v1.Pod {
	var out []*v1.Pod
	for _, uid := range d.sortedUniverse() {
		p := d.pods[uid]
		if p == nil || !p.inConfig || !d.actors.admitted[uid] || d.pw.IsPodKnownTerminated(uid) {
			continue
		}
		if d.st != nil {
			if pod := d.podOf(uid); d.st.Active(pod) { // the status manager's phase counts too
				out = append(out, pod)
			}
			continue
		}
		terminal := p.phase == v1.PodSucceeded || p.phase == v1.PodFailed
		if terminal && !d.pw.IsPodTerminationRequested(uid) {
			continue
		}
		out = append(out, d.podOf(uid))
	}
	return out
}

// admit is the kubelet's admission of a create, as far as it is real
// here: once a shutdown began, the real manager's Admit (it rejects
// everything then). A rejected pod never reaches the pod workers
// (HandlePodAdditions' reject-and-continue). It reports whether the
// create goes on. As upstream, admission is skipped for a UID whose
// termination the workers say is requested — unless only a bare kill
// requested it (noteRemove): upstream would have no record there.
func (d *Driver) admit(uid types.UID) bool {
	a := d.actors
	delete(a.rejected, uid) // a new ADD is admitted afresh
	if _, seen := a.firstAddAt[uid]; !seen {
		a.firstAddAt[uid] = d.h.Elapsed()
		a.addedInShutdown[uid] = a.shutdown != nil
	}
	p := d.pods[uid]
	requested := d.pw.IsPodTerminationRequested(uid) && (!a.bareKilled[uid] || d.opts.plant == plantBareKillIsKubelets)
	if a.shutdown != nil && d.opts.plant != plantAdmitInShutdown && !requested && p.phase != v1.PodSucceeded && p.phase != v1.PodFailed {
		if !a.shutdown.Admit(d.podOf(uid)).Admit {
			a.rejected[uid] = true
			if d.st != nil {
				// The kubelet's rejectPod (a *Kubelet method, not run
				// here): the status manager is told the pod Failed.
				d.st.Manager().SetPhase(d.podOf(uid), v1.PodFailed, nil)
			}
			return false
		}
	}
	a.admitted[uid] = true
	return true
}

// noteRemove follows a remove of uid, whose pod was in config or not.
// A remove of a pod out of config is the scripts' bare UpdatePod(kill)
// (the pod-worker contract's input): upstream's config merge sends
// HandlePodRemoves only the pods it holds, so the kubelet never sends it.
// If that kill is what requested the UID's termination, admit must not
// take the record it left for a kubelet's (swarm seed 859: K5). Any kill
// the kubelet does send (kill reaches the workers) makes the request
// real; a purge or a restart forgets the record.
func (d *Driver) noteRemove(uid types.UID, inConfig, requestedBefore bool) {
	if !inConfig && !requestedBefore && d.pw.IsPodTerminationRequested(uid) {
		d.actors.bareKilled[uid] = true
	}
}

// pollActors records, after a step, the kills the managers sent (in UID
// order) and the end of the shutdown's processing.
func (d *Driver) pollActors() {
	a := d.actors
	for _, r := range a.kills.Pending() {
		if a.noted[r] {
			continue
		}
		a.noted[r] = true
		if r.Actor == "shutdown" {
			d.h.Note(history.ShutdownKill{UID: r.UID, StatusFn: r.Opts.KillPodOptions.PodStatusFunc})
		}
	}
	if a.shutdown != nil && !a.shutdownDone && a.shutdown.Done() {
		a.shutdownDone = true
		d.h.Note(history.ShutdownDone{})
	}
	d.noteFinished()
}

// pendingKills are the UIDs of the parked kill requests, in order.
func (d *Driver) pendingKills() []types.UID {
	var out []types.UID
	for _, r := range d.actors.kills.Pending() {
		out = append(out, r.UID)
	}
	return out
}

// deliver performs the first parked kill request for uid as killNow
// performs killPodNow's: recorded, with a completion channel the driver
// watches and a relay to killPodNow's own, and its wait recorded as a
// killPodNow call that returns when the manager's killPodNow does.
func (d *Driver) deliver(uid types.UID) {
	var r *killgate.Request
	for _, p := range d.actors.kills.Pending() {
		if p.UID == uid && r == nil {
			r = p
		}
	}
	d.actors.kills.Take(r)
	ko := r.Opts.KillPodOptions
	if ko.Evict {
		d.evicted[uid] = true
	}
	before := d.answersOf(uid)
	c := &completion{id: d.deadCompletions + len(d.completions) + 1, uid: uid, ch: make(chan struct{}), step: d.Step,
		finishedBefore: before[qBeFinished] && before != unknownAfterSync}
	d.completions = append(d.completions, c)
	theirs := ko.CompletedCh
	ko.CompletedCh = c.ch
	d.updatePod(r.Opts, c.id, "driver")
	go relay(c.ch, theirs, d.stop)
	r.Release()
	k := &killNowWait{c: c, result: make(chan error, 1)}
	go func() { k.result <- r.Wait() }()
	k.callID = d.h.Call(killNowGoroutine(k), model.KillPodNowDone{UID: string(uid), ID: c.id})
	d.killNows = append(d.killNows, k)
}

// settleActors lets the managers finish within the settle phase: parked
// kills are delivered, parked callbacks succeed, and time passes until
// the shutdown's processing ended (its groups' graces are bounded).
func (d *Driver) settleActors() {
	for i := 0; i < 1000; i++ {
		if d.settleOne() {
			continue
		}
		if d.actors.idle() {
			return
		}
		time.Sleep(time.Second)
		d.waitQuiet()
		d.pollFires()
		d.pollKillNows()
		d.pollActors()
	}
}

// settleOne makes one settle move if one is possible: a wake, a kill
// delivery, a successful release.
func (d *Driver) settleOne() bool {
	if wakes := d.gates.Wakes(); len(wakes) > 0 {
		return d.Apply(script.Move{Kind: script.MoveWake, UID: wakes[0]})
	}
	if kills := d.pendingKills(); len(kills) > 0 {
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
		for _, r := range a.kills.Pending() {
			a.kills.Take(r)
			d.pw.UpdatePod(d.ctx, r.Opts)
			r.Release()
		}
		d.drainParked()
		if a.idle() && a.kills.Open() == 0 {
			break
		}
		time.Sleep(time.Second)
		d.waitQuiet()
	}
	if a.shutdown != nil {
		a.shutdown.Stop()
		d.waitQuiet()
	}
}

// noteSyncPod records that SyncPod is about to begin (K5's first half
// judges it against the view).
func (d *Driver) noteSyncPod(c *syncgate.Call) {
	if (d.kubeletOn() || d.st != nil) && c.Fn == model.SyncPod {
		d.h.Note(history.SyncPodBegins{UID: c.UID})
	}
}

// kubeletFindings are the kubelet-level oracle's violations (unexplained:
// no known upstream deviation is a K finding).
func (d *Driver) kubeletFindings() []finding.Finding {
	if d.actors.check == nil {
		return nil
	}
	var out []finding.Finding
	for _, v := range d.actors.check.Finish(d.View(), nil) {
		out = append(out, finding.Finding{Violation: v, Step: d.stepOf(v.Seq)})
	}
	return out
}
