package world

import (
	"strconv"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/oracle"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
	"github.com/podsim/podsim/workers"
	"github.com/podsim/podsim/world/boxes"
	"github.com/podsim/podsim/world/fakeruntime"
	"github.com/podsim/podsim/world/lastcall"
	"github.com/podsim/podsim/world/probe"
	"github.com/podsim/podsim/world/quiet"
	"github.com/podsim/podsim/world/shapes"
	"github.com/podsim/podsim/world/simrt"
	"github.com/podsim/podsim/world/slab"
	"github.com/podsim/podsim/world/workerset"
)

// Bounds of every run.
const (
	// SyncLoopPeriod is how often the kubelet's sync loop turns due work
	// queue entries into UpdatePod(sync) (the kubelet ticks every second).
	SyncLoopPeriod = time.Second
	// HousekeepingPeriod is how often the kubelet runs HandlePodCleanups
	// (SyncKnownPods, then restarts; kubelet.go housekeepingPeriod): the
	// liveness properties of SPEC §3.2 assume it runs periodically.
	HousekeepingPeriod = 2 * time.Second
	// SettleTime is how long the world runs after the last client finished
	// (see settle, settle.go, for the arithmetic): past every grace
	// period, backoff, killPodNow timeout and resync the plan can cause.
	SettleTime = 4 * time.Minute
	// MaxSteps bounds the scheduling points of one run.
	MaxSteps = 2_000_000
)

// World runs a Plan against the pod workers on the simulated runtime: one
// goroutine per plan client, the kubelet's sync loop and housekeeping, and
// a driver that settles and ends the run (settle, settle.go).
type World struct {
	S       *sim.Scheduler
	RT      *simrt.Runtime
	Runtime *fakeruntime.Runtime
	PW      *workers.PodWorkers
	Queue   *workers.Queue

	plan    plan.Plan
	uids    []types.UID  // the UIDs of the plan's pods so far, sorted (sortedUIDs)
	inOrder []*configPod // their pods, in that order (pod); newPod makes both lists anew
	// byLetter are the pods of the one-letter UIDs a to z, the generators'
	// (plan.letterUID), found without a scan (pod).
	byLetter [26]*configPod
	// Violations of the workers' own invariants, found at pod-lock
	// releases, each reported once (at its first sighting).
	Violations []history.Violation
	seen       map[string]bool
	// lastHousekeeping is when the last housekeeping pass began (the
	// fault points' estimate of the next one).
	lastHousekeeping time.Duration

	observers   []func(*history.Event)
	out         history.Event // the event being delivered (deliver)
	settled     bool
	seq         int64
	calls       int
	completions int                               // completion IDs handed out
	killNow     history.Few[string, *killNowCall] // by goroutine: killPodNow in progress

	// The end of a run (settle.go): the daemons stop once the
	// world quiesces; settleTimes is when the settle phase began and
	// ended, for the liveness oracle.
	quiescing   bool
	daemons     int
	daemonsDone *sim.Event
	settleTimes *oracle.Settle
	// syncLoop makes config delivery, work-queue syncs and housekeeping
	// mutually exclusive, as the kubelet's syncLoopIteration does.
	syncLoop *sim.Mutex

	// kube is the kubelet around the pod workers (kubelet.go), nil unless
	// the plan has a Node; Bugs re-introduces historical kubelet bugs.
	kube *kubelet
	Bugs KubeletBugs
	// nodeShutdown: logind has announced a node shutdown it has not
	// withdrawn, since nodeShutdownAt (when a kubelet's manager began
	// it). It is the node's, so a kubelet restart keeps it (restart.go);
	// readding: a restart's re-add runs (admission.go).
	nodeShutdown   bool
	nodeShutdownAt time.Duration
	readding       bool
	// reaper is the API server's grace reaper (reaper.go): the API
	// server's, so a kubelet restart keeps it.
	reaper graceReaper
	// internalOff: the workers' internal invariants and in-line assertions
	// are off (InternalInvariantsOff), in every epoch.
	internalOff bool
	// workersMutant is the workers mutant of this run (reintroduce), switched
	// on again in the pod workers of every kubelet restart.
	workersMutant string
	// epoch counts kubelet restarts (restart.go): each epoch has its own pod
	// workers, runtime adapter and work queue; epochFirstCall is the first
	// call ID of the current epoch (returns of older calls are not emitted).
	epoch          int
	epochFirstCall int
	restartedAt    time.Duration
	actors         int // kubelet actor goroutines started (goActor)
	// workers are the pod workers' goroutines still running (drain.go).
	workers       workerset.Set
	adds          int // pod objects ADDed (configPod.created)
	actorsRunning int // kubelet actor goroutines not yet returned
	// marks are the coverage marks the world's actors set (marks.go).
	marks map[string]bool
	// shapes are the input shapes drawn (world/shapes).
	shapes      shapes.Set
	podObjects  history.PodObjects // builds the pod objects (podOf, desiredObject)
	workerNames *workers.Names     // the pod workers' names, kept by Renew
	// kept holds the values a run makes (history.Slab, world/slab), for
	// Renew to hand out again in the lane's next run (zeroed, or set whole
	// where they are used).
	kept struct {
		pods    history.Slab[configPod]
		events  history.Slab[observedEvent]
		signals history.Slab[workerset.Signal]
		kills   history.Slab[struct {
			ko    workers.KillPodOptions
			grace int64
		}] // killOptions'
		uids    slab.Bump[types.UID]  // the lists newPod makes
		inOrder slab.Bump[*configPod] // (an older one may still be read)
		parts   slab.Kept[epochParts]
		runtime *fakeruntime.Runtime
		boxes   *boxes.Cache  // the events' boxes
		calls   lastcall.Memo // the last housekeeping calls as recorded
		run     [3]func()     // Run's goroutines: the daemons' and the driver's,
		clients []func()      // and each client's
	}
	running int // clients still running
	// cacheReads is, by goroutine, the runtime cache view its UpdatePod
	// read (cacheView): the call's input, reported at its return.
	cacheReads history.Few[string, ops.CacheView]
	// probes is what the probe keeps from one release of the pod lock to
	// the next (probe.go, world/probe).
	probes probe.Memo
	// desiredFree are desired's buffers not in use (desiredBuf).
	desiredFree []*desiredBuf

	// The settle phase ends early once the world is quiescent
	// (settle_quiet.go, world/quiet): actors register what keeps them busy
	// in busy, their periodic daemons' goroutine names in tickers;
	// quietEvent is fired when w.quiet finds the world quiescent.
	// foreignSyncer: the pod workers call a test's syncer (Wrap), not the
	// world's fake runtime, so a resync may do anything.
	busy          []func() bool
	tickers       []string
	quiet         quiet.Watch
	quietEvent    *sim.Event
	foreignSyncer bool
	// work is the sync loop's buffer of the UIDs due (syncDue).
	work []types.UID
	// fixed holds the events and the mutex a run makes once (fixedEvent).
	fixed struct {
		clientsDone, daemonsDone, quiet, workersEnded sim.Event
		settle                                        oracle.Settle
		syncLoop                                      sim.Mutex
	}
	// first holds the buffers' first arrays, in the world's allocation (NewWorld).
	first struct {
		desired   desiredBuf
		free      [2]*desiredBuf
		pods      [4]desiredPod
		stubs     [4]*v1.Pod
		live      [4]*workerset.Goroutine
		work      [4]types.UID
		observers [2]func(*history.Event)
	}
}

// clientName names client goroutine c: client/<c>.
func clientName(c int) string {
	if c < len(clientNames) {
		return clientNames[c]
	}
	return "client/" + strconv.Itoa(c)
}

var clientNames = [...]string{"client/0", "client/1", "client/2", "client/3"}

// fixedEvent makes e, one of w.fixed, the event called name: an event a
// run makes once, in the world's allocation.
func (w *World) fixedEvent(e *sim.Event, name string) *sim.Event {
	w.S.InitEvent(e, name)
	return e
}

// NewWorld builds the world for plan under the schedule and fault streams.
func NewWorld(plan plan.Plan, schedule, faults sim.Source, strategy sim.Strategy) *World {
	return new(World).build(plan, schedule, faults, strategy)
}

// Renew is NewWorld built in w's memory, w's pod objects and probes built
// again in place (history.PodObjects.Reuse, history.Probes.Reuse): a lane's
// next seed (run.Lane), once nothing holds w or anything it made, as are
// the values in kept, the quiet watch's maps and the worker records. The
// pod workers' names (workers.Names) and the scheduler (sim's Renew) too.
func (w *World) Renew(plan plan.Plan, schedule, faults sim.Source, strategy sim.Strategy) *World {
	objects, probes, names, kept, quiet, set, s := w.podObjects, w.probes.Kept(), w.workerNames, w.kept, w.quiet, w.workers, w.S
	*w = World{} // cleared in place: a composite literal is built aside and copied over
	w.podObjects, w.workerNames, w.kept, w.quiet, w.workers, w.S = objects, names, kept, quiet, set, s
	k := &w.kept
	for _, m := range [...]interface{ Reset() }{&k.pods, &k.events, &k.signals, &k.kills, &k.uids, &k.inOrder, &k.parts} {
		m.Reset()
	}
	w.quiet.Renew()
	k.boxes = k.boxes.Kept() // a lane's: its later runs box little
	w.workers.Renew()
	if w.workerNames == nil {
		w.workerNames = workers.NewNames()
	}
	w.podObjects.Reuse()
	w.probes.Renew(probes)
	return w.build(plan, schedule, faults, strategy)
}

// build is NewWorld in w, a zero World but for what Renew keeps (w.S).
func (w *World) build(plan plan.Plan, schedule, faults sim.Source, strategy sim.Strategy) *World {
	s := w.S.Renew(sim.Options{Source: schedule, Strategy: strategy, MaxSteps: MaxSteps})
	w.S, w.plan = s, plan
	f := &w.first
	f.desired = desiredBuf{pods: f.pods[:0], stubs: f.stubs[:0]}
	w.desiredFree = append(f.free[:0], &f.desired)
	w.workers.Live = f.live[:0]
	w.probes.Start()
	w.work = f.work[:0]
	if w.workers.Ended == nil { // made once in w's memory (Renew keeps it)
		w.workers.Ended = func(g *workerset.Goroutine) {
			w.noteWorker(w.kept.boxes.Worker(g.Name, g.UID, g.Kubelet, true))
		}
	}
	if w.kept.runtime == nil { // epoch 0's runtime, in memory Renew keeps
		w.kept.runtime = new(fakeruntime.Runtime)
	}
	w.Runtime = w.kept.runtime.Renew(s, faults, plan.Faults)
	w.Runtime.Observer = w
	if plan.Node != nil {
		w.kube = newKubelet(plan.Node)
	}
	w.startEpoch()
	return w
}

func (w *World) violate(invariant, msg string) {
	if w.seen[msg] {
		return
	}
	if w.seen == nil {
		w.seen = map[string]bool{}
	}
	w.seen[msg] = true
	w.Violations = append(w.Violations, history.Violation{Oracle: "workers", Invariant: invariant, Message: msg,
		At: w.S.Elapsed(), Seq: w.seq})
}

// InternalInvariantsOff switches off, for the whole run, the checks that
// read the pod workers' private state: the record invariants checked at
// every pod-lock release (reported as "workers internal …") and the
// workers' in-line assertions (workers.Config.NoAssertions). The run's
// verdict then rests on what a caller observes alone. Call it before Run.
func (w *World) InternalInvariantsOff() {
	w.internalOff = true
	w.PW.SetNoAssertions()
}

// Run executes the plan and the settle phase; it returns the scheduler's
// error (deadlock, limit, panic), if any.
func (w *World) Run() error {
	defer w.S.Close()
	// A counter and a fire-once event, not a Signal: a Signal holds one
	// wake-up, so clients finishing together would be counted once.
	w.running = max(w.plan.Clients, 1)
	w.fixedEvent(&w.fixed.clientsDone, "clients/done")
	k := &w.kept
	if k.run[0] == nil { // the goroutines' bodies, made once in w's memory (Renew keeps them)
		k.run = [3]func(){func() { w.daemonLoop(SyncLoopPeriod, w.syncDue) }, func() { w.daemonLoop(HousekeepingPeriod, w.housekeepingTick) }, w.driver}
	}
	for c := range w.running {
		if c == len(k.clients) {
			k.clients = append(k.clients, func() { w.client(c) })
		}
		w.S.Go(clientName(c), k.clients[c])
	}
	w.daemons, w.daemonsDone, w.syncLoop = 2, w.fixedEvent(&w.fixed.daemonsDone, "daemons/done"), &w.fixed.syncLoop
	w.S.InitMutex(w.syncLoop, "syncLoop") // after daemons/done, as the objects were always made
	w.S.GoDaemon("syncloop", k.run[0])
	w.S.GoDaemon("housekeeping", k.run[1])
	if w.kube != nil {
		// The kubelet's actors keep the settle phase going while they work.
		w.busy = append(w.busy, w.KubeletBusy)
		if w.kube.node.APIServer {
			w.daemons++
			w.tickers = append(w.tickers, "statusmanager")
			w.S.GoDaemon("statusmanager", w.statusLoop)
		}
	}
	w.S.Go("driver", k.run[2])
	return w.S.Run()
}

// client is plan client c's goroutine. It reads its actions in place:
// nothing changes them during a run.
func (w *World) client(c int) {
	for i := range w.plan.Actions {
		if a := &w.plan.Actions[i]; a.Client%max(w.plan.Clients, 1) == c {
			if d := a.At - w.S.Elapsed(); d > 0 {
				w.S.Sleep(d)
			}
			w.perform(*a)
		}
	}
	if w.running--; w.running == 0 {
		w.fixed.clientsDone.Fire()
	}
}

// driver settles the run once the clients are done, and ends it.
func (w *World) driver() {
	w.fixed.clientsDone.Wait()
	w.settle()
	if w.kube != nil {
		w.note(history.KubeletSettled{})
	}
	w.emit(history.Settled, 0, nil, nil)
	w.PW.Shutdown()
	w.drainWorkers()
	w.S.End() // Halt, for a goroutine that returns right after: Close has nothing of it to unwind
}

// syncDue is one tick of the kubelet's sync loop: due work-queue entries
// become UpdatePod(sync) for pods still in config; others are dropped
// (getPodsToSync, SPEC §1.8).
func (w *World) syncDue() {
	w.work = w.Queue.AppendWork(w.work[:0], w.S.Now()) // read here only: one sync loop a world
	for _, uid := range w.work {
		p := w.pod(uid)
		if p == nil || !p.inConfig {
			continue
		}
		// A pod admission rejected never starts in the workers (World.do),
		// but a work-queue entry under its UID may still drive the record an
		// earlier, admitted pod object left terminating there (its retries,
		// as getPodsToSync would): sync a rejected pod only while the workers
		// hold that termination, never into a new SyncPod.
		if w.kube == nil || p.admitted || w.ask(ops.IsPodTerminationRequested, uid) {
			w.quiet.SyncDue(uid) // a proven retry is no input (world/quiet's static.go)
			w.updatePod(workers.UpdatePodOptions{UpdateType: workers.SyncPodSync, Pod: w.podOf(uid)}, 0)
		}
	}
}

// Plan is the plan the world runs.
func (w *World) Plan() plan.Plan { return w.plan }

// Restarts counts the kubelet restarts so far.
func (w *World) Restarts() int { return w.epoch }

// Quiescing reports whether the inputs have stopped (the settle phase's
// last part: the daemons stop and the workers drain).
func (w *World) Quiescing() bool { return w.quiescing }
