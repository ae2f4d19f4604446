// Package actors holds the shutdown and eviction components of the real
// kubelet target: the real managers around the pod workers that the driver
// runs (package components), the node shutdown manager (package shutdown)
// and the eviction manager (evict.go, package evictmgr), with the
// kubelet's admission as far as it is real here. Their kills go through
// the real killPodNow and park at the kill gate (package killgate) until
// the driver delivers them. The driver is their Host, as it is the status
// component's (package status).
package actors

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/kubelet"
	"k8s.io/kubernetes/pkg/kubelet/eviction"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/oracle"
	kubeletoracle "github.com/podsim/podsim/oracle/kubelet"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/realkubelet/evictmgr"
	"github.com/podsim/podsim/realkubelet/killgate"
	"github.com/podsim/podsim/realkubelet/planted"
	"github.com/podsim/podsim/realkubelet/podworkers"
	"github.com/podsim/podsim/realkubelet/sdjudge"
	"github.com/podsim/podsim/realkubelet/shutdown"
	"github.com/podsim/podsim/realkubelet/status"
	"github.com/podsim/podsim/realkubelet/tape"
)

// Host is what the components need of the driver.
type Host interface {
	Context() context.Context
	Logger() klog.Logger
	Tape() *tape.Tape
	Workers() kubelet.PodWorkers
	// UIDs is every UID any move named, sorted.
	UIDs() []types.UID
	PodOf(uid types.UID) *v1.Pod
	// Config is the config source's view of uid: whether the driver has
	// its pod, whether it is in config, and its phase.
	Config(uid types.UID) (known, inConfig bool, phase v1.PodPhase)
	// Status is the status component, nil when it is off.
	Status() *status.Component
}

// Actors are the components of one kubelet process.
type Actors struct {
	host Host
	// plant is the bug a test planted in the components (package
	// planted; the zero value none).
	plant planted.Bug
	// Kills is the kill gate the managers' kills park at.
	Kills *killgate.Gate
	// Noted: the kill requests already recorded (ShutdownKill notes).
	Noted map[*killgate.Request]bool
	// Shutdown is the node shutdown manager, started with the process on
	// a node with graceful shutdown (StartManager), or at the first
	// Shutdown action of a driver that started none; begun: a shutdown
	// was announced to this process, or it started during one (inherit.go);
	// ShutdownDone: its processing ended (noted). The cancellation's state
	// and the pods its processing asks for are in cancel.go.
	Shutdown     *shutdown.Manager
	begun        bool
	shutdownAt   time.Duration
	ShutdownDone bool
	// groups are the groups the manager was built with.
	groups []plan.ShutdownGroup
	// sdRecords are the processings the manager was sent, for
	// KillProblems (kills.go).
	sdRecords []*sdRecord
	sdCancel
	heldOver
	// Logind are the logind faults the manager meets (logind.go);
	// logindWrong says what went wrong under them (LogindProblems).
	// DelayInForce is logind's inhibit delay as the process before left it
	// (0 for the first: the faults' start), which a restart keeps.
	DelayInForce time.Duration
	Logind       LogindFaults
	logindWrong  []string
	// What the kubelet's view says of each pod (oracle.KubeletPod).
	Admitted, Rejected, AddedInShutdown map[types.UID]bool
	FirstAddAt                          map[types.UID]time.Duration
	// BareKilled: the UID's termination was requested in the workers only
	// by a remove of a pod out of config (Admit, NoteRemove).
	BareKilled map[types.UID]bool
	// Evict is the eviction manager once an Evict came (evict.go);
	// finished is ShouldPodBeFinished per UID as of the last step.
	Evict *evictmgr.Manager
	// EvictRanked is the pod ranked first in each turn; EvictBusy counts
	// Evict actions that came while a turn ran.
	EvictRanked []string
	EvictBusy   int
	// evictActive are the active pods each turn began with, in turn order.
	evictActive [][]*v1.Pod
	// evictFnWrong: what was wrong with each eviction kill's status
	// function (evictionStatusWrong), in the order the kills came.
	evictFnWrong []string
	// disruptionWrong: the eviction and shutdown kills whose status
	// function does not set DisruptionTarget (disruption.go).
	disruptionWrong []string
	mu              sync.Mutex
	finished        map[types.UID]bool
	// Check is the kubelet-level oracle (K5 among others), fed every event
	// when a component is on; nil otherwise.
	Check oracle.Oracle
}

// New makes the components of a kubelet process around host's pod
// workers, with plant (tests only; 0 none); judge: they have a
// kubelet-level oracle of their own (Check).
func New(host Host, plant planted.Bug, judge bool) *Actors {
	f := func(pw kubelet.PodWorkers) eviction.KillPodFunc {
		return podworkers.KillPodNow(host.Context(), pw, &record.FakeRecorder{})
	}
	a := &Actors{host: host, plant: plant, Kills: killgate.New(host.Workers(), f), Noted: map[*killgate.Request]bool{},
		Admitted: map[types.UID]bool{}, Rejected: map[types.UID]bool{}, AddedInShutdown: map[types.UID]bool{},
		FirstAddAt: map[types.UID]time.Duration{}, BareKilled: map[types.UID]bool{}}
	if judge {
		a.Check = kubeletoracle.New()
	}
	return a
}

// StartShutdown is the Shutdown action: logind announces the shutdown to
// the process's manager (announce), started now with the plan's groups if
// the driver started none (a driver not told of the node's graceful
// shutdown: NewDriver's).
func (a *Actors) StartShutdown(groups []plan.ShutdownGroup) {
	if a.begun {
		if !a.heldOver.on {
			a.shutdownAgain() // after a cancellation (cancel.go)
		}
		return // logind announces no second shutdown while one is in force (inherit.go)
	}
	a.begun, a.shutdownAt = true, a.host.Tape().Elapsed()
	if a.Shutdown == nil {
		a.StartManager(groups)
	}
	if a.Shutdown.StartProblem() == "" {
		a.announce(true)
	}
}

// StartManager builds the real manager with groups (the world's default,
// one group of 30 s, if there are none) and starts it; false if its start
// failed (LogindProblems says why: no loop watches; the manager is kept).
// It is the kubelet process's start on a node with graceful shutdown:
// upstream's kubelet starts its node shutdown manager before its sync
// loop admits a pod, so the manager holds an inhibit lock and watches
// logind from the first move, and every admission asks its Admit.
func (a *Actors) StartManager(groups []plan.ShutdownGroup) bool {
	if len(groups) == 0 {
		groups = []plan.ShutdownGroup{{Priority: 0, Grace: 30}}
	}
	var gs []shutdown.Group
	for _, g := range groups {
		gs = append(gs, shutdown.Group{Priority: g.Priority, Grace: g.Grace})
	}
	kill := a.Kills.KillPodFunc("shutdown")
	if a.plant == planted.ShutdownKeepsPhase {
		kill = keepPhase(kill)
	}
	if a.plant == planted.NoDisruption {
		kill = dropDisruption(kill)
	}
	if a.plant == planted.GraceStretched {
		kill = stretchGrace(kill)
	}
	if a.plant == planted.KillLingers {
		kill = linger(kill)
	}
	m, err := shutdown.Start(a.host.Context(), shutdown.Config{Groups: gs, Kill: kill,
		ActivePods: func() []*v1.Pod { return a.snapshot }, Logger: a.host.Logger(), Restart: a.Logind.Restart, FailAt: a.Logind.FailAt, ShortDelay: a.shortDelay(),
		LoseFirstClose: a.plant == planted.LogindLeak, RefuseReconnect: a.plant == planted.LogindGone, Preparing: a.heldOver.on, DelayInForce: a.DelayInForce,
		LoseRelease: a.plant == planted.LockKept})
	if err != nil {
		panic(err) // the pinned kubelet's manager no longer fits (shutdown_test.go says how)
	}
	a.Shutdown, a.groups = m, groups
	if why := m.StartProblem(); why != "" {
		a.logindWrong = append(a.logindWrong, why) // no loop watches: nothing to trigger
		return false
	}
	return true
}

// announce is logind announcing the shutdown to the started manager:
// with Logind.Restart logind restarts under it first (and announces
// nothing if the manager does not watch again: LogindProblems says why);
// then the pods active now are the snapshot its processing asks for
// (processShutdownEvent runs right after the event, with no gate in
// between), the shutdown begins and the manager is sent it (trigger; the
// plant ShutdownNeverTriggered withholds the first).
func (a *Actors) announce(first bool) {
	h := a.host.Tape()
	if a.Logind.Restart {
		if !a.restartLogind() {
			return
		}
		h.Note(history.LogindRestarted{Watching: a.Shutdown.Watching()})
	}
	a.snapshot, a.shutdownAt, a.ShutdownDone, a.cancelled, a.quiet = a.ActivePods(), h.Elapsed(), false, false, false
	h.Note(history.ShutdownBegins{Active: uidsOf(a.snapshot)})
	if !first || a.plant != planted.ShutdownNeverTriggered {
		a.recordShutdown()
		a.trigger()
	}
}

// keepPhase is kill with a status function that restores the phase the
// manager's function set (planted.ShutdownKeepsPhase).
func keepPhase(kill eviction.KillPodFunc) eviction.KillPodFunc {
	return func(pod *v1.Pod, evict bool, grace *int64, fn func(*v1.PodStatus)) error {
		return kill(pod, evict, grace, func(s *v1.PodStatus) {
			phase := s.Phase
			fn(s)
			s.Phase = phase
		})
	}
}

// ShutdownAt is when the last shutdown began, 0 if none did.
func (a *Actors) ShutdownAt() time.Duration {
	switch {
	case a.heldOver.on:
		return a.heldOver.at // begun in an earlier process
	case !a.begun:
		return 0
	}
	return a.shutdownAt
}

// ActivePods is the kubelet's GetActivePods (filterOutInactivePods, a
// *Kubelet method, restated): the pods handed to the pod workers and
// still in config, minus those known terminated and those whose phase is
// terminal unless their termination was requested; by UID.
func (a *Actors) ActivePods() []*v1.Pod {
	var out []*v1.Pod
	pw, st := a.host.Workers(), a.host.Status()
	for _, uid := range a.host.UIDs() {
		known, inConfig, phase := a.host.Config(uid)
		if !known || !inConfig || !a.Admitted[uid] || pw.IsPodKnownTerminated(uid) {
			continue
		}
		if st != nil {
			if pod := a.host.PodOf(uid); st.Active(pod) { // the status manager's phase counts too
				out = append(out, pod)
			}
			continue
		}
		terminal := phase == v1.PodSucceeded || phase == v1.PodFailed
		if terminal && !pw.IsPodTerminationRequested(uid) {
			continue
		}
		out = append(out, a.host.PodOf(uid))
	}
	return out
}

// Admit is the kubelet's admission of a create, as far as it is real
// here: the real manager's Admit, once there is a manager (it rejects
// everything while it knows of a shutdown). A rejected pod never reaches the pod workers
// (HandlePodAdditions' reject-and-continue). It reports whether the
// create goes on. As upstream, admission is skipped for a UID whose
// termination the workers say is requested — unless only a bare kill
// requested it (NoteRemove): upstream would have no record there.
func (a *Actors) Admit(uid types.UID) bool {
	delete(a.Rejected, uid) // a new ADD is admitted afresh
	if _, seen := a.FirstAddAt[uid]; !seen {
		a.FirstAddAt[uid] = a.host.Tape().Elapsed()
		a.AddedInShutdown[uid] = a.inShutdown()
	}
	if a.Rejects(uid) {
		a.judgeRejection(uid)
		a.Rejected[uid] = true
		if st := a.host.Status(); st != nil {
			// The kubelet's rejectPod (a *Kubelet method, not run
			// here): the status manager is told the pod Failed.
			st.Manager().SetPhase(a.host.PodOf(uid), v1.PodFailed, nil)
		}
		return false
	}
	a.Admitted[uid] = true
	return true
}

// Rejects: an ADD of uid now would be rejected (Admit's rule, without its
// effects): there is a manager, the workers report no termination of uid
// requested that a kubelet's kill made, its phase is not terminal, and
// the real shutdown manager's Admit refuses it.
func (a *Actors) Rejects(uid types.UID) bool {
	_, _, phase := a.host.Config(uid)
	requested := a.host.Workers().IsPodTerminationRequested(uid) && (!a.BareKilled[uid] || a.plant == planted.BareKillIsKubelets)
	return a.Shutdown != nil && a.plant != planted.AdmitInShutdown && a.plant != planted.RestartToldAdmits && !requested && phase != v1.PodSucceeded && phase != v1.PodFailed &&
		(a.plant == planted.RejectsAlways || !a.Shutdown.Admit(a.host.PodOf(uid)).Admit)
}

// NoteRemove follows a remove of uid, whose pod was in config or not.
// A remove of a pod out of config is the scripts' bare UpdatePod(kill)
// (the pod-worker contract's input): upstream's config merge sends
// HandlePodRemoves only the pods it holds, so the kubelet never sends it.
// If that kill is what requested the UID's termination, Admit must not
// take the record it left for a kubelet's (swarm seed 859: K5). Any kill
// the kubelet does send (kill reaches the workers) makes the request
// real; a purge or a restart forgets the record.
func (a *Actors) NoteRemove(uid types.UID, inConfig, requestedBefore bool) {
	if !inConfig && !requestedBefore && a.host.Workers().IsPodTerminationRequested(uid) {
		a.BareKilled[uid] = true
	}
}

// Poll records, after a step, the kills the managers sent (in UID order)
// and the end of the shutdown's processing.
func (a *Actors) Poll() {
	h := a.host.Tape()
	for _, r := range a.Kills.Pending() {
		if a.Noted[r] {
			continue
		}
		a.Noted[r] = true
		if r.Actor == "shutdown" {
			h.Note(history.ShutdownKill{UID: r.UID, StatusFn: r.Opts.KillPodOptions.PodStatusFunc})
			a.recordKill(r)
		}
		a.judgeDisruption(r)
		if r.Actor == "eviction" {
			if why := evictionStatusWrong(r.Opts.KillPodOptions.PodStatusFunc); why != "" {
				a.evictFnWrong = append(a.evictFnWrong, fmt.Sprintf("the eviction of pod %s has a status function that %s", r.UID, why))
			}
			if g := r.Sent.Grace; g == nil || *g != 1 || !r.Sent.Evict {
				a.evictFnWrong = append(a.evictFnWrong, fmt.Sprintf("the eviction of pod %s was sent with grace %s and evict %v, want grace 1 and evict "+
					"(a hard threshold's immediate eviction)", r.UID, sdjudge.ShowGrace(g), r.Sent.Evict))
			}
		}
	}
	if a.begun && !a.quiet && !a.ShutdownDone && a.Shutdown.Done() {
		a.ShutdownDone = true
		a.recordDone()
		h.Note(history.ShutdownDone{})
	}
	a.deliverCancel()
	a.noteFinished()
}

// PendingKills are the UIDs of the parked kill requests, in order.
func (a *Actors) PendingKills() []types.UID {
	var out []types.UID
	for _, r := range a.Kills.Pending() {
		out = append(out, r.UID)
	}
	return out
}

// Unfinished says which manager's work did not end (the settle phase's
// check, after it waited its bound for Idle): a node shutdown whose
// processing never returned, an eviction turn still running; "" for none.
func (a *Actors) Unfinished() string {
	var out []string
	if a.shutdownBusy() {
		out = append(out, fmt.Sprintf("the node shutdown begun at %v never ended (its processing did not return and release the inhibit lock)", a.shutdownAt))
	}
	if a.cancelPending && a.ShutdownDone {
		out = append(out, "the node shutdown manager never read the shutdown's cancellation (its loop did not wait for a signal)")
	}
	if a.evictBusy() {
		out = append(out, "an eviction turn never ended")
	}
	return strings.Join(out, "; ")
}

// shutdownBusy: a node shutdown began and its processing has not returned.
func (a *Actors) shutdownBusy() bool {
	return a.begun && !a.quiet && !a.ShutdownDone && !a.Shutdown.Done()
}

// evictBusy: an eviction turn runs.
func (a *Actors) evictBusy() bool { return a.Evict != nil && a.Evict.Busy() }

// Idle: no manager has work left (the shutdown's processing ended, no
// eviction turn runs).
func (a *Actors) Idle() bool { return !a.shutdownBusy() && !a.evictBusy() }
