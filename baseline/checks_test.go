package baseline

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/oracle/latency"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/workers"
	"github.com/podsim/podsim/world/fakeruntime"
)

// baseChecks collects a baseline run's failures; first wins.
type baseChecks struct {
	mu       sync.Mutex
	failures []string
}

func newBaseChecks() *baseChecks { return &baseChecks{} }

func (c *baseChecks) fail(invariant, format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.failures = append(c.failures, invariant+": "+fmt.Sprintf(format, args...))
}

func (c *baseChecks) first() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.failures) == 0 {
		return ""
	}
	return c.failures[0]
}

func (c *baseChecks) recoverAs(name string) {
	if r := recover(); r != nil {
		c.fail("panic", "%s: %v", name, r)
	}
}

func sortedUIDsOf[V any](m map[types.UID]V) []types.UID { return slices.Sorted(maps.Keys(m)) }

// baseSyncer is the fake runtime of the baseline: random real delays that
// honour cancellation unless the faults say otherwise, errors, natural
// completion, and upstream-test-style assertions at each call.
type baseSyncer struct {
	w      *baseWorld
	faults plan.Faults
	mu     sync.Mutex
	rng    *rand.Rand
	// running counts containers; minGrace is the smallest explicit grace
	// applied to a pod (S11); staticStarted the static UIDs per full name
	// that began SyncPod and have not finished (S15); finished the UIDs
	// whose SyncTerminatedPod succeeded, until their next incarnation (S6).
	running       map[types.UID]int
	minGrace      map[types.UID]int64
	staticStarted map[string]map[types.UID]bool
	finished      map[types.UID]bool
	// failures counts the calls failed with an error, each owed a retry
	// through the work queue.
	failures int
}

func newBaseSyncer(w *baseWorld, f plan.Faults, seed uint64) *baseSyncer {
	return &baseSyncer{w: w, faults: f, rng: rand.New(rand.NewPCG(seed, 11)), running: map[types.UID]int{},
		minGrace: map[types.UID]int64{}, staticStarted: map[string]map[types.UID]bool{}, finished: map[types.UID]bool{}}
}

func (s *baseSyncer) chance(perMille int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return perMille > 0 && s.rng.IntN(1000) < perMille
}

// call takes time like the simulated runtime's call, in real time.
func (s *baseSyncer) call(cancel workers.Event) error {
	s.w.jitter(50 * time.Millisecond)
	if s.chance(s.faults.SlowRate) && s.faults.MaxDelay > 0 {
		s.mu.Lock()
		d := time.Duration(1+s.rng.Int64N(int64(s.faults.MaxDelay/time.Millisecond))) * time.Millisecond
		s.mu.Unlock()
		if s.chance(s.faults.IgnoreCancel) {
			time.Sleep(d / baselineScale)
		} else if cancel.WaitFor(d) {
			return workers.ErrCanceled
		}
	}
	if s.chance(s.faults.ErrorRate) {
		s.mu.Lock()
		s.failures++
		s.mu.Unlock()
		return fakeruntime.ErrTransient
	}
	return nil
}

// pull is B16's uncancellable image pull; it fails the kill-latency bound
// if the kill waited for it.
func (s *baseSyncer) pull(uid types.UID, cancel workers.Event) {
	var firedAt time.Time
	for end := time.Now().Add(s.faults.UncancellablePull / baselineScale); time.Now().Before(end); {
		time.Sleep(time.Millisecond / 4)
		if firedAt.IsZero() && cancel.Fired() {
			firedAt = time.Now()
		}
	}
	if !firedAt.IsZero() && time.Since(firedAt)*baselineScale > latency.KillLatencyBound {
		s.w.checks.fail("kill-latency", "pod %s: SyncPod went on %v after its cancellation", uid, time.Since(firedAt)*baselineScale)
	}
}

// checkRunning: S3 (a SyncPod under a termination request runs on a
// cancelled context) and S4/S7 (no SyncPod while the queries say nothing
// runs or containers are being stopped).
func (s *baseSyncer) checkRunning(when string, uid types.UID, cancel workers.Event) {
	pw := s.w.pw
	if pw.IsPodTerminationRequested(uid) && !cancel.Fired() {
		s.w.checks.fail("S3", "pod %s: SyncPod %s with termination requested and its context not cancelled", uid, when)
	}
	if !pw.CouldHaveRunningContainers(uid) || pw.ShouldPodContainersBeTerminating(uid) {
		s.w.checks.fail("S7", "pod %s: SyncPod %s while the queries say no container runs or will start", uid, when)
	}
}

func (s *baseSyncer) SyncPod(cancel workers.Event, _ workers.UpdateType, pod, _ *v1.Pod, _ *workers.PodStatus) (bool, error) {
	uid := pod.UID
	s.checkRunning("began", uid, cancel)
	s.w.callBegan("SyncPod", uid)
	s.mu.Lock()
	delete(s.finished, uid)
	if isStatic(pod) {
		full := pod.Name + "_" + pod.Namespace
		for other := range s.staticStarted[full] {
			if other != uid {
				s.w.checks.fail("S15", "static %s: pod %s began SyncPod while %s has not finished", full, uid, other)
			}
		}
		if s.staticStarted[full] == nil {
			s.staticStarted[full] = map[types.UID]bool{}
		}
		s.staticStarted[full][uid] = true
	}
	pulling := s.faults.UncancellablePull > 0 && s.running[uid] == 0
	s.mu.Unlock()
	if pulling {
		s.pull(uid, cancel)
	}
	err := s.call(cancel)
	s.checkRunning("ended", uid, cancel)
	if err != nil {
		return false, err
	}
	terminal := s.chance(s.faults.TerminalRate)
	if terminal {
		// Natural completion ends the incarnation: no restart is owed.
		s.w.mu.Lock()
		delete(s.w.restart, uid)
		s.w.mu.Unlock()
	}
	s.mu.Lock()
	s.running[uid] = 1
	if terminal {
		s.running[uid] = 0
	}
	s.mu.Unlock()
	s.w.callEnded("SyncPod", uid, terminal)
	return terminal, nil
}

func isStatic(pod *v1.Pod) bool { return pod.Annotations[workers.ConfigSourceAnnotationKey] != "api" }

func (s *baseSyncer) SyncTerminatingPod(cancel workers.Event, pod *v1.Pod, _ *workers.PodStatus, grace int64, fn workers.PodStatusFunc) error {
	s.w.callBegan("SyncTerminatingPod", pod.UID)
	s.mu.Lock()
	// A grace shortened after the worker read it cancels this call
	// instead (S11's last clause), so only an uncancelled call is judged.
	if g, ok := s.minGrace[pod.UID]; ok && grace > max(g, 1) && !cancel.Fired() {
		s.w.checks.fail("S11", "pod %s: SyncTerminatingPod with grace %d after an explicit grace of %d", pod.UID, grace, g)
	}
	s.mu.Unlock()
	if err := s.call(cancel); err != nil {
		return err
	}
	s.mu.Lock()
	s.running[pod.UID] = 0
	s.mu.Unlock()
	s.w.statusFnApplied(pod.UID, fn)
	return nil
}

func (s *baseSyncer) SyncTerminatingRuntimePod(cancel workers.Event, rp *workers.RunningPod) error {
	if err := s.call(cancel); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.running[rp.ID] = 0
	return nil
}

func (s *baseSyncer) SyncTerminatedPod(cancel workers.Event, pod *v1.Pod, _ *workers.PodStatus) error {
	if pod == nil {
		s.w.checks.fail("S17", "SyncTerminatedPod without a pod (a runtime-only kill re-drove a terminated pod)")
		return nil
	}
	s.mu.Lock()
	if s.finished[pod.UID] {
		s.w.checks.fail("S6", "pod %s: SyncTerminatedPod again after it finished", pod.UID)
	}
	s.mu.Unlock()
	if err := s.call(cancel); err != nil {
		return err
	}
	s.mu.Lock()
	s.finished[pod.UID] = true
	delete(s.minGrace, pod.UID)
	for _, started := range s.staticStarted {
		delete(started, pod.UID)
	}
	s.mu.Unlock()
	s.w.callEnded("SyncTerminatedPod", pod.UID, false)
	return nil
}

// newIncarnation: uid is about to get a new record (housekeeping's
// re-create, or a create of an unknown UID), whose calls and graces start
// afresh (the old record may have been purged without finishing).
func (s *baseSyncer) newIncarnation(uid types.UID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.finished, uid)
	delete(s.minGrace, uid)
}

// explicitGrace records a grace the pod was given (a delete or kill that
// has returned): the next SyncTerminatingPod must not exceed it.
func (s *baseSyncer) explicitGrace(uid types.UID, g int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if old, ok := s.minGrace[uid]; !ok || g < old {
		s.minGrace[uid] = g
	}
}

func (s *baseSyncer) Get(uid types.UID) (*workers.PodStatus, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return &workers.PodStatus{ID: uid, RunningContainers: s.running[uid], Timestamp: s.w.clk.Now()}, nil
}

func (s *baseSyncer) GetNewerThan(uid types.UID, _ time.Time) (*workers.PodStatus, error) {
	s.w.jitter(10 * time.Millisecond)
	return s.Get(uid)
}

// checkEnd is the end-state assertions once the run settled: L1 (every
// requested termination happened, every pod that left config finished),
// L4 (a UID re-created while terminating runs again), S14 (every kill's
// completion fired once the pod terminated or was forgotten).
func (w *baseWorld) checkEnd() {
	states := map[types.UID]workers.PodStateSnapshot{}
	for _, st := range w.pw.PodStates() {
		states[st.UID] = st
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, uid := range sortedUIDsOf(states) {
		st, p := states[uid], w.pods[uid]
		switch {
		case st.TerminationRequested && !st.Terminated:
			w.checks.fail("L1", "pod %s: termination requested, never terminated (%s)", uid, st)
		case p != nil && !p.inConfig && !st.Finished:
			w.checks.fail("L1", "pod %s: left config, never finished (%s)", uid, st)
		}
	}
	for _, uid := range sortedUIDsOf(w.restart) {
		st, ok := states[uid]
		p := w.pods[uid]
		runnable := p.inConfig && p.deletion == nil && p.phase == v1.PodRunning && !p.rejected
		if w.restart[uid] && runnable && (!ok || st.Finished) {
			w.checks.fail("L4", "pod %s: re-created while terminating, never restarted (%s)", uid, st)
		}
	}
	for _, uid := range sortedUIDsOf(w.kills) {
		st, known := states[uid]
		for _, ev := range w.kills[uid] {
			if !ev.Fired() && (!known || st.Terminated) {
				w.checks.fail("S14", "pod %s: a kill's completion never fired (%s)", uid, st)
			}
		}
	}
}

// do performs one plan action as World.do does.
func (w *baseWorld) do(a plan.Action) {
	switch {
	case a.Kind == plan.SyncKnown:
		w.housekeeping()
		return
	case w.kube != nil:
		w.kubeDo(a)
		return
	}
	requested := a.Kind == plan.Create && w.pw.IsPodTerminationRequested(a.UID)
	if _, known := w.pw.PodState(a.UID); !known && a.UID != "" {
		w.syncer.newIncarnation(a.UID)
	}
	w.mu.Lock()
	p := w.pods[a.UID]
	if p == nil {
		p = &basePod{action: a, phase: v1.PodRunning}
		w.pods[a.UID] = p
	}
	o := workers.UpdatePodOptions{UpdateType: workers.SyncPodUpdate}
	grace := int64(-1)
	switch a.Kind {
	case plan.Create:
		p.inConfig, p.version, o.UpdateType = true, p.version+1, workers.SyncPodCreate
		w.restart[a.UID] = requested
	case plan.Update, plan.Finish:
		p.version++
		if a.Kind == plan.Finish {
			p.phase = v1.PodPhase(a.Terminal)
		}
	case plan.Sync, plan.Query:
		o.UpdateType = workers.SyncPodSync
	case plan.Delete:
		g := max(a.Grace, 0)
		p.version, p.deletion, grace = p.version+1, &g, g
	case plan.Remove, plan.Vanish:
		p.inConfig, o.UpdateType = false, workers.SyncPodKill
	case plan.Kill, plan.KillNow, plan.RuntimeKill:
		grace = killOptions(a, &o)
	}
	if a.Kind != plan.Create && a.Kind != plan.Sync && a.Kind != plan.Query && a.Kind != plan.Update {
		delete(w.restart, a.UID)
	}
	o.Pod = w.podOf(a.UID)
	w.registerKill(a, &o)
	w.mu.Unlock()
	w.deliver(a, o, grace)
}

// killOptions fills in a Kill's, KillNow's or RuntimeKill's options and
// returns the grace it gives (-1: none).
func killOptions(a plan.Action, o *workers.UpdatePodOptions) int64 {
	o.UpdateType = workers.SyncPodKill
	o.KillPodOptions = &workers.KillPodOptions{Evict: a.Evict}
	if a.Grace < 0 || a.Kind == plan.RuntimeKill {
		return -1
	}
	g := a.Grace
	o.KillPodOptions.PodTerminationGracePeriodSecondsOverride = &g
	return g
}

// registerKill gives a Kill its completion event, which S14 follows; the
// caller holds mu.
func (w *baseWorld) registerKill(a plan.Action, o *workers.UpdatePodOptions) {
	if a.Kind == plan.Kill {
		o.KillPodOptions.CompletedCh = w.rt.NewEvent("completed/" + string(a.UID))
		w.kills[a.UID] = append(w.kills[a.UID], o.KillPodOptions.CompletedCh)
	}
}

// deliver makes the pod-worker call of one action and records the grace
// it gave.
func (w *baseWorld) deliver(a plan.Action, o workers.UpdatePodOptions, grace int64) {
	w.apply(a, o)
	// The grace binds only a pod it applied to: one terminating, not yet
	// terminated (a kill of a finished pod applies to nothing).
	if st, ok := w.pw.PodState(a.UID); grace >= 0 && ok && st.TerminationRequested && !st.Terminated {
		w.syncer.explicitGrace(a.UID, grace)
	}
}

// apply makes the pod-worker call of one action.
func (w *baseWorld) apply(a plan.Action, o workers.UpdatePodOptions) {
	pw := w.pw
	switch a.Kind {
	case plan.Vanish:
	case plan.Query:
		_ = pw.IsPodKnownTerminated(a.UID) || pw.CouldHaveRunningContainers(a.UID) || pw.ShouldPodBeFinished(a.UID)
	case plan.KillNow:
		// A kill of a pod already terminated completes at once (L6, G1).
		before, known := pw.PodState(a.UID)
		err := pw.KillPodNow(o.Pod, a.Evict, o.KillPodOptions.PodTerminationGracePeriodSecondsOverride, nil)
		if err != nil && known && before.Terminated {
			w.checks.fail("L6", "pod %s: KillPodNow of a terminated pod (%s): %v", a.UID, before, err)
		}
	case plan.RuntimeKill:
		one := int64(1)
		pw.UpdatePod(workers.UpdatePodOptions{UpdateType: workers.SyncPodKill,
			RunningPod:     &workers.RunningPod{ID: a.UID, Name: "pod-" + string(a.UID), Namespace: "default"},
			KillPodOptions: &workers.KillPodOptions{PodTerminationGracePeriodSecondsOverride: &one}})
	default:
		pw.UpdatePod(o)
	}
}
