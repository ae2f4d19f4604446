package baseline

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/run"
	"github.com/podsim/podsim/workers"
	"github.com/podsim/podsim/workers/mutants"
	"github.com/podsim/podsim/world"
	"github.com/podsim/podsim/world/kubebugs"
)

// The baseline of issue 7: the same plans and mutants exercised the way
// upstream's pod_workers_test.go exercises the kubelet — the real runtime
// (goroutines, sync.Mutex, channels, timers), random sleeps and yields,
// -race, many iterations — with checks that can be attached to a real run:
// the workers' own invariants at every release of the pod lock, panics,
// and upstream-test-style assertions on the sync calls and the end state
// (mutants_baseline_checks_test.go). Virtual seconds run as baselineScale
// times faster real time, so a plan's kill timeouts and backoffs fit. A
// plan with a Node gets a kubelet in front of the pod workers
// (mutants_baseline_kubelet_test.go), which the K mutants break.

// baselineScale: one virtual second is 1/baselineScale of a real second.
const baselineScale = 2000

// scaledClock is the real clock, run baselineScale times faster.
type scaledClock struct {
	clock.RealClock
	epoch time.Time
}

func (c scaledClock) Now() time.Time {
	return c.epoch.Add(time.Since(c.epoch) * baselineScale)
}
func (c scaledClock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }
func (c scaledClock) NewTimer(d time.Duration) clock.Timer {
	return c.RealClock.NewTimer(d / baselineScale)
}
func (c scaledClock) After(d time.Duration) <-chan time.Time {
	return c.RealClock.After(d / baselineScale)
}
func (c scaledClock) Sleep(d time.Duration) { time.Sleep(d / baselineScale) }

// basePod is the config source's view of one pod, and with a Node the
// kubelet's and the API server's (the World's configPod).
type basePod struct {
	action   plan.Action
	version  int
	inConfig bool
	deletion *int64
	phase    v1.PodPhase
	// admitted: handed to the pod workers by an ADD; rejected: refused at
	// admission (a local Failed status); added: ADDed once, first during
	// the node shutdown (addedInShutdown); killed by the shutdown manager.
	admitted, rejected, added, addedInShutdown, killedByShutdown bool
	// incarnation counts the new pod objects and new worker records of the
	// UID: a status write decided in one is dropped in the next.
	incarnation int
	// object counts the pod objects ADDed under the UID (K6 tells them apart).
	object int
	// The API server's view: the object exists, its published phase, a
	// pending watch echo (due at echoAt, real time).
	inAPI    bool
	apiPhase v1.PodPhase
	echoDue  bool
	echoAt   time.Time
}

// baseWorld runs one plan on the real runtime.
type baseWorld struct {
	plan    plan.Plan
	clk     scaledClock
	rt      *workers.RealRuntime
	pw      *workers.PodWorkers
	queue   *workers.Queue
	syncer  *baseSyncer
	rng     *rand.Rand // guarded by mu
	mutant  string
	loop    sync.Mutex // the kubelet's sync loop: config, work queue, housekeeping
	mu      sync.Mutex // guards the fields below; never held while calling pw
	pods    map[types.UID]*basePod
	kills   map[types.UID][]workers.Event
	restart map[types.UID]bool // a create landed on a terminating record
	checks  *baseChecks
	// kube is the kubelet in front of the workers (Plan.Node; nil: the pod
	// workers' world only); actors are the eviction and shutdown
	// goroutines (actorsRunning guarded by mu).
	kube          *baseKubelet
	actors        sync.WaitGroup
	actorsRunning int
}

// checkedRuntime is the real runtime whose pod lock checks the workers'
// invariants before every release and whose goroutines turn a panic into a
// failure instead of killing the process.
type checkedRuntime struct {
	*workers.RealRuntime
	w *baseWorld
}

func (r checkedRuntime) NewMutex(name string) sync.Locker {
	inner := r.RealRuntime.NewMutex(name)
	if name != "podLock" {
		return inner
	}
	return &baseCheckedLock{inner: inner, w: r.w}
}

func (r checkedRuntime) Go(name string, f func()) {
	r.RealRuntime.Go(name, func() {
		defer r.w.checks.recoverAs(name)
		f()
	})
}

type baseCheckedLock struct {
	inner sync.Locker
	w     *baseWorld
}

func (l *baseCheckedLock) Lock() { l.inner.Lock() }
func (l *baseCheckedLock) Unlock() {
	if pw := l.w.pw; pw != nil {
		if err := pw.CheckInvariantsLocked(); err != nil {
			l.w.checks.fail("internal", "%v", err)
		}
	}
	l.inner.Unlock()
}

func newBaseWorld(plan plan.Plan, seed uint64, mutant string) (*baseWorld, error) {
	w := &baseWorld{plan: plan, clk: scaledClock{epoch: time.Now()}, mutant: mutant,
		rng: rand.New(rand.NewPCG(seed, 7)), pods: map[types.UID]*basePod{},
		kills: map[types.UID][]workers.Event{}, restart: map[types.UID]bool{}, checks: newBaseChecks()}
	w.rt = workers.NewRealRuntime(w.clk, seed)
	rt := checkedRuntime{RealRuntime: w.rt, w: w}
	w.queue = workers.NewQueue(rt)
	w.syncer = newBaseSyncer(w, plan.Faults, seed)
	cfg := workers.Config{Runtime: rt, Syncer: w.syncer, Cache: w.syncer, Queue: w.queue}
	var bugs world.KubeletBugs
	switch m, ok := run.MutantNamed(mutant); {
	case ok && m.Kind == kubebugs.KindFault:
		w.syncer.faults.UncancellablePull = world.B16PullTime
	case ok && m.Kind == kubebugs.KindKubelet:
		bugs, _ = world.KubeletBugsOf(mutant)
	case mutant != "":
		if err := mutants.Enable(&cfg, mutant); err != nil {
			return nil, err
		}
	}
	if plan.Node != nil {
		w.kube = newBaseKubelet(plan.Node, bugs)
	}
	w.pw = workers.New(cfg)
	return w, nil
}

// jitter is a random real pause of up to max virtual time, or a yield.
func (w *baseWorld) jitter(max time.Duration) {
	w.mu.Lock()
	n := w.rng.IntN(4)
	d := time.Duration(w.rng.Int64N(int64(max) + 1))
	w.mu.Unlock()
	if n == 0 {
		runtime.Gosched()
		return
	}
	time.Sleep(d / baselineScale)
}

// run plays the plan from one goroutine per client with random pauses,
// runs the sync loop and housekeeping alongside, settles, and returns the
// first failure ("" if none).
func (w *baseWorld) run() string {
	stop := make(chan struct{})
	var daemons, clients sync.WaitGroup
	for _, d := range w.daemons() {
		daemons.Add(1)
		go func() {
			defer daemons.Done()
			defer w.checks.recoverAs("daemon")
			for {
				select {
				case <-stop:
					return
				case <-time.After(d.period / baselineScale):
					d.tick()
				}
			}
		}()
	}
	began := time.Now()
	for c := range max(w.plan.Clients, 1) {
		clients.Add(1)
		go func() {
			defer clients.Done()
			defer w.checks.recoverAs(fmt.Sprintf("client/%d", c))
			for _, a := range w.plan.Actions {
				if a.Client%max(w.plan.Clients, 1) != c {
					continue
				}
				time.Sleep(a.At/baselineScale - time.Since(began))
				w.jitter(200 * time.Millisecond)
				w.perform(a)
			}
		}()
	}
	clients.Wait()
	settled := w.settle()
	failures := w.syncer.failureCount()
	close(stop)
	daemons.Wait()
	w.actors.Wait()
	// The daemons' last ticks may have started work: let it finish. A call
	// of that work that failed is owed a retry the stopped sync loop will
	// not make, so the end state is then inconclusive too.
	settled = settled && w.drain() && !w.kubeletBusy() && w.syncer.failureCount() == failures
	if settled {
		// An unsettled run (still retrying at the deadline) is
		// inconclusive for the end-state checks.
		w.checkEnd()
		w.mu.Lock()
		w.checkKubeletEnd()
		w.mu.Unlock()
	}
	w.pw.Shutdown()
	return w.checks.first()
}

// daemon is a periodic goroutine of the kubelet.
type daemon struct {
	period time.Duration
	tick   func()
}

// daemons are the sync loop and housekeeping (under the sync-loop lock)
// and, with an API server, the status manager (which takes it only to
// deliver its echoes).
func (w *baseWorld) daemons() []daemon {
	inLoop := func(f func()) func() {
		return func() {
			w.loop.Lock()
			defer w.loop.Unlock()
			f()
		}
	}
	out := []daemon{{world.SyncLoopPeriod, inLoop(w.syncDue)}, {world.HousekeepingPeriod, inLoop(w.housekeeping)}}
	if w.kube != nil && w.kube.node.APIServer {
		out = append(out, daemon{world.StatusSyncPeriod, w.statusTick})
	}
	return out
}

// settle waits until the pod workers and the kubelet have been idle, and
// no call has failed, for a while (every retry the plan can cause happens
// within it);
// false if they were still busy after three times SettleTime.
func (w *baseWorld) settle() bool {
	deadline, idleSince := time.Now().Add(3*world.SettleTime/baselineScale), time.Now()
	failures := w.syncer.failureCount()
	for time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
		for _, s := range w.pw.PodStates() {
			if s.Working || s.InFlight {
				idleSince = time.Now()
			}
		}
		// A failed call is owed a retry, which a sample can miss (a call
		// takes well under the sampling period): count the failures too.
		if f := w.syncer.failureCount(); w.kubeletBusy() || f != failures {
			idleSince, failures = time.Now(), f
		}
		if time.Since(idleSince) > 90*time.Second/baselineScale {
			return true
		}
	}
	return false
}

func (s *baseSyncer) failureCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.failures
}

// drain waits, with the daemons stopped, until no record is working or in
// flight; false if one still is after a second.
func (w *baseWorld) drain() bool {
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		busy := false
		for _, s := range w.pw.PodStates() {
			busy = busy || s.Working || s.InFlight
		}
		if !busy {
			return true
		}
	}
	return false
}

func (w *baseWorld) perform(a plan.Action) {
	switch a.Kind {
	case plan.Kill, plan.KillNow, plan.Query:
		w.do(a)
		return
	case plan.Evict:
		w.goActor("eviction", func() { w.evict(a) })
		return
	case plan.Shutdown:
		if w.kube != nil {
			w.goActor("shutdown", w.shutdown)
		}
		return
	case plan.Restart:
		return // not modelled on the real runtime (mutants_baseline_kubelet_test.go)
	case plan.ShutdownCancel:
		return // not modelled: the baseline's node shutdown is never withdrawn (no catalogued bug needs it)
	}
	w.loop.Lock()
	defer w.loop.Unlock()
	w.do(a)
}

// podOf builds the current config version of uid; the caller holds mu.
func (w *baseWorld) podOf(uid types.UID) *v1.Pod {
	p := w.pods[uid]
	source := "api"
	if p.action.Static {
		source = "file"
	}
	name := p.action.Name
	if name == "" {
		name = "pod-" + string(uid)
	}
	grace := p.action.SpecGrace
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{UID: uid, Name: name, Namespace: "default",
		Annotations: map[string]string{workers.ConfigSourceAnnotationKey: source}},
		Spec: v1.PodSpec{TerminationGracePeriodSeconds: &grace}, Status: v1.PodStatus{Phase: p.phase}}
	if p.deletion != nil {
		pod.DeletionTimestamp = &metav1.Time{Time: w.clk.Now()}
		pod.DeletionGracePeriodSeconds = p.deletion
	}
	return pod
}

func (w *baseWorld) syncDue() {
	for _, uid := range w.queue.GetWork(w.clk.Now()) {
		w.mu.Lock()
		p := w.pods[uid]
		var pod *v1.Pod
		if p != nil && p.inConfig {
			pod = w.podOf(uid)
		}
		w.mu.Unlock()
		if pod != nil && (w.kube == nil || w.syncAllowed(uid)) {
			w.updatePod(workers.UpdatePodOptions{UpdateType: workers.SyncPodSync, Pod: pod})
		}
	}
}

func (w *baseWorld) housekeeping() {
	w.mu.Lock()
	var desired []*v1.Pod
	for _, uid := range sortedUIDsOf(w.pods) {
		if w.pods[uid].inConfig {
			desired = append(desired, w.podOf(uid))
		}
	}
	w.mu.Unlock()
	known := w.pw.SyncKnownPods(desired)
	if w.kube != nil {
		w.kubeHousekeeping(desired, known)
		return
	}
	for _, pod := range desired {
		if _, ok := known.Get(pod.UID); !ok {
			w.syncer.newIncarnation(pod.UID)
			w.pw.UpdatePod(workers.UpdatePodOptions{UpdateType: workers.SyncPodCreate, Pod: pod})
		}
	}
}
