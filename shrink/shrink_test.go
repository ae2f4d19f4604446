package shrink

import (
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/oracle"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/run"
	"github.com/podsim/podsim/sim"
)

// killThenUpdate is a synthetic bug: a plan fails iff pod a is killed and
// later updated. Shrinking must find exactly those two actions, in their
// simplest form, and drop every choice (the predicate ignores them).
func killThenUpdate(c run.Case) (run.Case, bool) {
	killed := false
	for _, a := range c.Plan.Actions {
		if a.UID != "a" {
			continue
		}
		if a.Kind == plan.Kill {
			killed = true
		}
		if killed && a.Kind == plan.Update {
			return c, true
		}
	}
	return c, false
}

// syntheticCase is a big case that killThenUpdate fails on: an update
// storm's plan with a kill of a and an update of a added, and long choice
// streams.
func syntheticCase(t *testing.T, seed uint64) run.Case {
	t.Helper()
	pl := plan.GenerateUpdateStorm(sim.NewPCG(seed))
	pl.Actions = slices.Insert(pl.Actions, 2, plan.Action{At: 2 * time.Second, Client: 2, Kind: plan.Kill, UID: "a", Grace: 30, Evict: true, SpecGrace: 30})
	pl.Actions = append(pl.Actions, plan.Action{At: 9 * time.Second, Client: 1, Kind: plan.Update, UID: "a", Grace: -1, SpecGrace: 30})
	src := sim.NewPCG(seed + 1)
	c := run.Case{Plan: pl}
	for i := 0; i < 500; i++ {
		c.Schedule = append(c.Schedule, src.Intn(4))
		c.Faults = append(c.Faults, src.Intn(1000))
	}
	if _, ok := killThenUpdate(c); !ok {
		t.Fatal("synthetic case does not fail its own predicate")
	}
	return c
}

func TestMinimizeFindsKillThenUpdate(t *testing.T) {
	for seed := uint64(0); seed < 5; seed++ {
		m := Minimize(syntheticCase(t, seed), killThenUpdate, Options{})
		want := []plan.Action{{Kind: plan.Kill, UID: "a"}, {Kind: plan.Update, UID: "a", Grace: -1}}
		if !reflect.DeepEqual(m.Case.Plan.Actions, want) {
			t.Errorf("seed %d: got actions %v, want %v", seed, m.Case.Plan.Actions, want)
		}
		if len(m.Case.Schedule)+len(m.Case.Faults) != 0 || m.Case.Plan.Clients != 1 || m.Case.Plan.Faults != (plan.Faults{}) {
			t.Errorf("seed %d: got %v, clients %d, faults %+v; want no choices, 1 client, no faults",
				seed, m.Case.Size(), m.Case.Plan.Clients, m.Case.Plan.Faults)
		}
		if m.Exhausted || m.Runs > DefaultRuns {
			t.Errorf("seed %d: %d runs, exhausted %v", seed, m.Runs, m.Exhausted)
		}
	}
}

// needsChoice37 fails iff schedule choice 37 is non-zero and some fault
// choice is at least 500: shrinking must keep exactly those and zero or
// cut the rest.
func needsChoice37(c run.Case) (run.Case, bool) {
	return c, len(c.Schedule) > 37 && c.Schedule[37] != 0 && slices.ContainsFunc(c.Faults, func(v int) bool { return v >= 500 })
}

func TestMinimizeKeepsOnlyTheNeededChoices(t *testing.T) {
	c := syntheticCase(t, 7)
	c.Schedule[37] = 3
	m := Minimize(c, needsChoice37, Options{})
	if len(m.Case.Plan.Actions) != 0 {
		t.Errorf("got %d actions, want 0 (the predicate ignores the plan)", len(m.Case.Plan.Actions))
	}
	if len(m.Case.Schedule) != 38 || m.Case.Size().NonZero != 2 || len(m.Case.Faults) == 0 {
		t.Errorf("got schedule %v faults %v; want 38 choices, one non-zero schedule and one non-zero fault choice",
			m.Case.Schedule, m.Case.Faults)
	}
	if _, ok := needsChoice37(m.Case); !ok {
		t.Error("the shrunk case no longer fails")
	}
}

// TestMinimizeNeverKeepsAPassingCase: whatever the predicate, the result
// fails it (here a predicate over a hash of the whole case, so most
// candidates pass).
func TestMinimizeNeverKeepsAPassingCase(t *testing.T) {
	calls := 0
	hashy := func(c run.Case) (run.Case, bool) {
		calls++
		h := int64(len(c.Plan.Actions))
		for _, v := range slices.Concat(c.Schedule, c.Faults) {
			h = h*31 + int64(v)
		}
		return c, h%3 == 0
	}
	c := syntheticCase(t, 3)
	for !func() bool { _, ok := hashy(c); return ok }() {
		c.Schedule = append(c.Schedule, 1)
	}
	calls = 0
	m := Minimize(c, hashy, Options{})
	if _, ok := hashy(m.Case); !ok {
		t.Fatal("Minimize returned a case its predicate passes")
	}
	if m.Runs != calls-1 {
		t.Fatalf("Minimize reports %d runs but called the predicate %d times", m.Runs, calls-1)
	}
}

func TestMinimizeStopsAtTheBudget(t *testing.T) {
	var seen []Progress
	m := Minimize(syntheticCase(t, 1), killThenUpdate, Options{MaxRuns: 5,
		Progress: func(p Progress) { seen = append(seen, p) }})
	if m.Runs != 5 || !m.Exhausted || len(seen) != 5 || seen[4].Runs != 5 || seen[4].MaxRuns != 5 {
		t.Fatalf("got %d runs (exhausted %v), %d progress reports; want 5, true, 5", m.Runs, m.Exhausted, len(seen))
	}
	if _, ok := killThenUpdate(m.Case); !ok {
		t.Fatal("the budget-cut result no longer fails")
	}
}

func TestMinimizeIsDeterministic(t *testing.T) {
	a := Minimize(syntheticCase(t, 4), killThenUpdate, Options{})
	b := Minimize(syntheticCase(t, 4), killThenUpdate, Options{})
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("two shrinks of one case differ:\n%+v\n%+v", a.Case, b.Case)
	}
}

// plantedKillDuringSync is a planted bug for real runs: a run "fails"
// invariant P1 when a pod is killed while its SyncPod runs (the coverage
// mark kill-during-syncpod), a property of plan, schedule and faults
// together.
type plantedMark struct {
	m               *history.Marker
	mark, invariant string
}

func (p plantedMark) Observe(_ oracle.View, ev *history.Event) { p.m.Observe(ev) }

func (p plantedMark) Finish(oracle.View, error) []history.Violation {
	if !slices.Contains(p.m.Sorted(), p.mark) {
		return nil
	}
	return []history.Violation{{Oracle: "planted", Invariant: p.invariant, Message: "reached " + p.mark}}
}

func planted(pairs ...string) func() []oracle.Oracle {
	return func() []oracle.Oracle {
		var out []oracle.Oracle
		for i := 0; i+1 < len(pairs); i += 2 {
			out = append(out, plantedMark{m: history.NewMarker(), mark: pairs[i], invariant: pairs[i+1]})
		}
		return out
	}
}

// firstSeedReaching records the first seed of f whose run reaches mark.
func firstSeedReaching(t testing.TB, f plan.Family, mark string) run.Case {
	t.Helper()
	for seed := uint64(0); seed < 200; seed++ {
		c, r := run.RecordSeed(f, seed, sim.RandomWalk{}, run.CheckOptions{})
		if slices.Contains(r.Marks, mark) && len(c.Plan.Actions) > 3 {
			return c
		}
	}
	t.Fatalf("no seed of %s reaches %s", f.Name, mark)
	return run.Case{}
}

func TestShrinkRealRunKeepsThePlantedFailure(t *testing.T) {
	c := firstSeedReaching(t, familyNamed(t, "swarm"), plan.MarkKillDuringSyncPod)
	before := run.RunCase(c, sim.RandomWalk{}, run.CheckOptions{}, planted(plan.MarkKillDuringSyncPod, "P1")()...)
	if run.FailureKeys(before)[0] != "planted P1" {
		t.Fatalf("the recorded case does not fail as planted: %v", run.FailureKeys(before))
	}
	s, err := shrinkWith(c, sim.RandomWalk{}, run.CheckOptions{}, Options{}, planted(plan.MarkKillDuringSyncPod, "P1"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Target != "planted P1" || !slices.Contains(run.FailureKeys(s.Result), "planted P1") {
		t.Fatalf("got target %q and keys %v; want planted P1 kept", s.Target, run.FailureKeys(s.Result))
	}
	// A kill during SyncPod needs a create and a kill, nothing more.
	if n := len(s.Case.Plan.Actions); n > 2 || s.Case.Size().NonZero >= c.Size().NonZero {
		t.Fatalf("shrunk to %v, from %v: want at most 2 actions and fewer non-zero choices", s.Case.Size(), c.Size())
	}
	t.Logf("%s in %d runs: %v → %v\n%s", s.Target, s.Runs, c.Size(), s.Case.Size(), run.Story(s.Case.Plan, s.Result))
}

// TestShrinkDoesNotSlipToAnotherFailure: with two planted failures, the
// one the original reports first is kept, although dropping it would
// leave a smaller case failing the other.
func TestShrinkDoesNotSlipToAnotherFailure(t *testing.T) {
	c := firstSeedReaching(t, familyNamed(t, "swarm"), plan.MarkKillDuringSyncPod)
	oracles := planted(plan.MarkKillDuringSyncPod, "P1", plan.MarkEarlyKill, "P2")
	r := run.RunCase(c, sim.RandomWalk{}, run.CheckOptions{}, oracles()...)
	if keys := run.FailureKeys(r); len(keys) < 1 || keys[0] != "planted P1" {
		t.Skipf("seed does not fail P1 first: %v", keys)
	}
	s, err := shrinkWith(c, sim.RandomWalk{}, run.CheckOptions{}, Options{}, oracles)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(run.FailureKeys(s.Result), "planted P1") {
		t.Fatalf("slipped: the shrunk case fails %v, not planted P1", run.FailureKeys(s.Result))
	}
}

func TestShrinkOfAPassingCase(t *testing.T) {
	c, r := run.RecordSeed(familyNamed(t, "early-kill"), 1, sim.RandomWalk{}, run.CheckOptions{})
	if r.Failed() {
		t.Fatalf("seed 1 fails: %v", r)
	}
	if _, err := Shrink(c, sim.RandomWalk{}, run.CheckOptions{}, Options{}); !errors.Is(err, ErrNothingToShrink) {
		t.Fatalf("got %v, want ErrNothingToShrink", err)
	}
}

// TestRecordedCaseReplaysTheSeed: a recorded Case is the same run as its
// seed, trace for trace.
func TestRecordedCaseReplaysTheSeed(t *testing.T) {
	for _, f := range plan.Families() {
		for seed := uint64(0); seed < 3; seed++ {
			for _, st := range []sim.Strategy{sim.RandomWalk{}, sim.PCT{Depth: 3, Steps: 2000}} {
				c, r := run.RecordSeed(f, seed, st, run.CheckOptions{})
				if again := run.RunCase(c, st, run.CheckOptions{}); again.TraceSHA != r.TraceSHA || r.TraceSHA != run.RunSeed(f, seed, st, run.CheckOptions{}).TraceSHA {
					t.Errorf("%s seed %d %v: recorded case replays to a different trace", f.Name, seed, st)
				}
			}
		}
	}
}

func TestFailureKeys(t *testing.T) {
	r := run.Result{Err: &sim.DeadlockError{}, Violations: []history.Violation{
		{Oracle: "workers", Invariant: "internal", Message: "workers: invariant syncpod-cancelled-once-requested broken for pod b: ..."},
		{Oracle: "workers", Invariant: "internal", Message: "something else"},
		{Oracle: "safety", Invariant: "S3"}, {Oracle: "liveness", Invariant: "L1"},
	}}
	want := []string{"scheduler deadlock", "workers internal syncpod-cancelled-once-requested", "workers internal", "safety S3", "liveness L1"}
	if got := run.FailureKeys(r); !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	for err, kind := range map[error]string{&sim.LimitError{Kind: "steps"}: "scheduler steps-limit", &sim.PanicError{}: "scheduler panic",
		&sim.HotLoopError{}: "scheduler hot-loop", errors.New("x"): "scheduler error"} {
		if got := run.FailureKeys(run.Result{Err: err}); len(got) != 1 || got[0] != kind {
			t.Errorf("%T: got %q, want %q", err, got, kind)
		}
	}
}

func familyNamed(t testing.TB, name string) plan.Family {
	t.Helper()
	f, ok := plan.FamilyNamed(name)
	if !ok {
		t.Fatalf("no family %q", name)
	}
	return f
}
