package workers_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/sim"
	"github.com/podsim/podsim/workers"
	"github.com/podsim/podsim/world/simrt"
)

// scriptWorld is the world of one narrated script (testdata/*.txt): the pod
// workers on the simulated runtime under a pinned, cooperative schedule
// (every choice 0: a goroutine runs until it blocks), a syncer whose calls
// the script can hold, release and give outcomes to, and a runtime cache
// the script sets. Every directive runs as a simulated goroutine and the
// simulation then runs until nothing is runnable, so its output is exactly
// what the directive caused.
type scriptWorld struct {
	t     testing.TB
	s     *sim.Scheduler
	rt    *simrt.Runtime
	pw    *workers.PodWorkers
	queue *workers.Queue

	log      []string
	versions map[types.UID]int
	holds    map[string]int // "SyncPod" or "SyncPod/a": how many next calls wait for release
	held     map[string]workers.Event
	outcomes map[string][]string // "SyncPod/a" → scripted outcomes, oldest first
	running  map[types.UID]int   // runtime cache: running containers
	kills    int
}

func newScriptWorld(t testing.TB) *scriptWorld {
	s := sim.New(sim.Options{Source: sim.NewReplay(nil), MaxSteps: 100_000})
	w := &scriptWorld{
		t: t, s: s, rt: simrt.New(s),
		versions: map[types.UID]int{}, holds: map[string]int{}, held: map[string]workers.Event{},
		outcomes: map[string][]string{}, running: map[types.UID]int{},
	}
	w.queue = workers.NewQueue(w.rt)
	w.pw = workers.New(workers.Config{Runtime: w.rt, Syncer: (*scriptSyncer)(w), Cache: (*scriptCache)(w), Queue: w.queue})
	// Check the record invariants at every release of the pod lock.
	w.rt.BeforeUnlock = func(name string) {
		if name != "podLock" {
			return
		}
		if err := w.pw.CheckInvariantsLocked(); err != nil {
			w.logf("INVARIANT VIOLATED: %v", err)
			t.Errorf("invariant violated: %v", err)
		}
	}
	return w
}

func (w *scriptWorld) logf(format string, args ...any) {
	w.log = append(w.log, fmt.Sprintf("%v ", w.s.Elapsed())+fmt.Sprintf(format, args...))
}

// do runs f as a simulated goroutine, then the simulation until nothing is
// runnable, and returns what was logged meanwhile.
func (w *scriptWorld) do(name string, f func()) string {
	w.s.Go(name, f)
	return w.settle(w.s.RunUntilIdle())
}

func (w *scriptWorld) settle(err error) string {
	if err != nil {
		w.t.Fatalf("simulation: %v\ntrace:\n%s", err, w.s.Trace())
	}
	out := strings.Join(w.log, "\n")
	w.log = nil
	if out == "" {
		return "(nothing happened)"
	}
	return out
}

// pod builds the next version of pod uid from the directive's arguments.
func (w *scriptWorld) pod(uid types.UID, a args) *v1.Pod {
	w.versions[uid]++
	name := a.str("name", "pod-"+string(uid))
	p := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			UID: uid, Name: name, Namespace: "default",
			Labels:      map[string]string{"version": fmt.Sprint(w.versions[uid])},
			Annotations: map[string]string{"kubernetes.io/config.source": "api"},
		},
		Spec: v1.PodSpec{TerminationGracePeriodSeconds: ptr(a.int("spec-grace", 30))},
	}
	if a.has("static") {
		p.Annotations["kubernetes.io/config.source"] = "file"
	}
	if a.has("deleted") {
		p.DeletionTimestamp = &metav1.Time{Time: w.s.Now()}
		p.DeletionGracePeriodSeconds = ptr(a.int("deletion-grace", 30))
	}
	p.Status.Phase = v1.PodPhase(a.str("phase", string(v1.PodRunning)))
	return p
}

func describePod(p *v1.Pod) string {
	if p == nil {
		return "pod=<none>"
	}
	return fmt.Sprintf("pod=%s/v%s", p.UID, p.Labels["version"])
}

func ptr(v int64) *int64 { return &v }

// scriptSyncer is the syncer side of scriptWorld: it logs each call, holds it
// if the script asked, and returns the scripted outcome (default ok).
type scriptSyncer scriptWorld

func (y *scriptSyncer) call(fn string, uid types.UID, detail string, cancel workers.Event) string {
	w := (*scriptWorld)(y)
	key := fn + "/" + string(uid)
	w.logf("%s %s begin %s", fn, uid, detail)
	for _, k := range []string{key, fn} {
		if w.holds[k] > 0 {
			w.holds[k]--
			gate := w.rt.NewEvent("gate/" + key)
			w.held[key] = gate
			gate.Wait()
			delete(w.held, key)
			break
		}
	}
	outcome := "ok"
	if q := w.outcomes[key]; len(q) > 0 {
		outcome, w.outcomes[key] = q[0], q[1:]
	}
	seen := ""
	if cancel.Fired() {
		seen = " (its cancel had fired)"
	}
	w.logf("%s %s end %s%s", fn, uid, outcome, seen)
	return outcome
}

func outcomeErr(outcome string) error {
	switch outcome {
	case "ok", "terminal":
		return nil
	case "canceled":
		return workers.ErrCanceled
	}
	return errors.New("scripted " + outcome)
}

func (y *scriptSyncer) SyncPod(cancel workers.Event, ut workers.UpdateType, pod, _ *v1.Pod, _ *workers.PodStatus) (bool, error) {
	o := y.call("SyncPod", pod.UID, fmt.Sprintf("type=%s %s", ut, describePod(pod)), cancel)
	return o == "terminal", outcomeErr(o)
}

func (y *scriptSyncer) SyncTerminatingPod(cancel workers.Event, pod *v1.Pod, _ *workers.PodStatus, grace int64, _ workers.PodStatusFunc) error {
	return outcomeErr(y.call("SyncTerminatingPod", pod.UID, fmt.Sprintf("grace=%d %s", grace, describePod(pod)), cancel))
}

func (y *scriptSyncer) SyncTerminatingRuntimePod(cancel workers.Event, rp *workers.RunningPod) error {
	return outcomeErr(y.call("SyncTerminatingRuntimePod", rp.ID, "runtime-only", cancel))
}

func (y *scriptSyncer) SyncTerminatedPod(cancel workers.Event, pod *v1.Pod, _ *workers.PodStatus) error {
	return outcomeErr(y.call("SyncTerminatedPod", pod.UID, describePod(pod), cancel))
}

// scriptCache answers at once with the running-container count the script
// set for the pod (0 unless set).
type scriptCache scriptWorld

func (c *scriptCache) Get(uid types.UID) (*workers.PodStatus, error) {
	return &workers.PodStatus{ID: uid, RunningContainers: c.running[uid], Timestamp: c.s.Now()}, nil
}

func (c *scriptCache) GetNewerThan(uid types.UID, _ time.Time) (*workers.PodStatus, error) {
	return c.Get(uid)
}

// args reads a directive's key=value arguments.
type args map[string][]string

func (a args) has(k string) bool { _, ok := a[k]; return ok }

func (a args) str(k, def string) string {
	if v := a[k]; len(v) > 0 {
		return v[0]
	}
	return def
}

func (a args) int(k string, def int64) int64 {
	if v := a[k]; len(v) > 0 {
		var n int64
		if _, err := fmt.Sscan(v[0], &n); err == nil {
			return n
		}
	}
	return def
}

func (a args) list(k string) []string { return slices.Clone(a[k]) }
