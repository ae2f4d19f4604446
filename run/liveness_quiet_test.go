package run

import (
	"flag"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/oracle"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
	"github.com/podsim/podsim/world"
)

// historyLength is the length of the history in a linearizability message.
var historyLength = regexp.MustCompile(` [0-9]+ operations`)

// quietSeeds is TestQuietSettleSameVerdict's seeds per family, and
// TestQuietSettleMutants' per mutant and family (0: the defaults).
var quietSeeds = flag.Uint64("quiet.seeds", 0, "seeds per family (and per mutant) of the quiet-settle comparisons; 0: 150 (8 per mutant)")

// sameSettleVerdict compares a run with the settle phase's shortcuts
// (quick) with the full ticking phase (full): the same verdict, and the
// same coverage marks as the full run had reached by the quick run's quiet
// tick (fullMarks is cut there). What the full phase reaches later it
// reaches through repeated resyncs, which the early end, having proved
// them repeats, does not run: the marker counts some of them as new
// stories (a SyncKnownPods meeting one in flight, an update of a UID
// killed once, a static pod syncing while another of its name waits).
func sameSettleVerdict(quick, full []string, quickMarks, fullMarks []string) bool {
	return slices.Equal(quick, full) && slices.Equal(quickMarks, fullMarks)
}

// marksUntil is a coverage marker that sees the events up to cut only.
type marksUntil struct {
	cut time.Duration
	m   *history.Marker
}

func (c marksUntil) Observe(_ oracle.View, ev *history.Event) {
	if ev.At <= c.cut {
		c.m.Observe(ev)
	}
}

func (c marksUntil) Finish(oracle.View, error) []history.Violation { return nil }

// settlePair runs seed of f with the shortcuts, then in full; the full
// run's marks are those it had reached at the quick run's quiet tick (all
// of them if it never went quiet), and extra the ones it reached later.
func settlePair(f plan.Family, seed uint64, mutant string) (quick, full, qm, fm, extra []string, wq, wf *world.World) {
	quick, qm, wq = settleRun(f, seed, mutant, false, nil)
	cut := marksUntil{cut: time.Duration(math.MaxInt64), m: history.NewMarker()}
	if at, ok := wq.QuietAt(); ok {
		cut.cut = at
	}
	full, all, wf := settleRun(f, seed, mutant, true, cut)
	cut.m.Merge(wf.Marks())
	fm = cut.m.Sorted()
	extra = slices.DeleteFunc(all, func(m string) bool { return slices.Contains(fm, m) })
	return quick, full, qm, fm, extra, wq, wf
}

// quietSeedCount is -quiet.seeds if given, else n (short with -short).
func quietSeedCount(n, short uint64) uint64 {
	switch {
	case *quietSeeds > 0:
		return *quietSeeds
	case testing.Short():
		return short
	}
	return n
}

// settleRun runs one seed of f with every oracle, the mutant on (none:
// ""); full keeps the whole settle phase even once the world is quiet, and
// the settle phase's shortcuts are taken in a mutant's run as in a correct
// one (MutantShortcuts). It returns the verdict (the scheduler's error and
// every violation, as text), the coverage marks reached and the world;
// extra, if any, observes the run too.
func settleRun(f plan.Family, seed uint64, mutant string, full bool, extra oracle.Oracle) (verdict, marks []string, _ *world.World) {
	w := settleWorld(f, seed, mutant, sim.RandomWalk{}, world.SettleRules{Full: full, MutantShortcuts: mutant != "", TickIdle: true})
	var extras []oracle.Oracle
	if extra != nil {
		extras = append(extras, extra)
	}
	r := judge(f, seed, w, CheckOptions{Mutant: mutant}, extras)
	for i, v := range r.Violations {
		if st := w.View().Settle(); st != nil && v.Seq >= st.Seq {
			// Found at the end of the drain (KubeletSettled, Settled: an
			// oracle's final judgment), which the early end brings forward.
			r.Violations[i].At, r.Violations[i].Seq = 0, 0
		}
	}
	return verdictOf(r), r.Marks, w
}

// settleWorld is the world of one seed of f under strategy, the mutant on
// (none: ""), its settle phase under rules.
func settleWorld(f plan.Family, seed uint64, mutant string, strategy sim.Strategy, rules world.SettleRules) *world.World {
	st := plan.SeedStreams(seed)
	w := world.NewWorld(f.Generate(st.Plan), st.Schedule, st.Faults, strategy)
	if err := w.Reintroduce(mutant); err != nil {
		panic(err)
	}
	w.SetSettleRules(rules)
	return w
}

// failed: a verdict (verdictOf) that names an error or a violation.
func failed(verdict []string) bool { return len(verdict) > 1 || verdict[0] != "<nil>" }

// verdictOf is a result as text, for comparing a run that ended its settle
// phase early with one that did not: the scheduler's error and every
// violation, with where it happened, except the time and event of the
// liveness oracle's, which judges at Settled (earlier with the early end),
// and the length of the history a linearizability message names (the
// full phase's repeated SyncKnownPods make it longer).
func verdictOf(r Result) []string {
	verdict := []string{fmt.Sprint(r.Err)}
	for _, v := range r.Violations {
		if v.Oracle == "liveness" {
			v.At, v.Seq = 0, 0
		}
		if v.Oracle == "linearizability" {
			v.Message = historyLength.ReplaceAllString(v.Message, " N operations")
		}
		verdict = append(verdict, fmt.Sprintf("%s %s %v #%d: %s", v.Oracle, v.Invariant, v.At, v.Seq, v.Message))
	}
	return verdict
}

// TestQuietSettleSameVerdict: ending the settle phase once the world is
// quiescent gives the verdict and the coverage marks of the full phase.
// Both runs are the same run until the quiet tick (the check is the same
// in both); the full one then goes on for the rest of SettleTime, ticking
// throughout. Longer: go test -run TestQuietSettleSameVerdict ./run -args -quiet.seeds 2000.
func TestQuietSettleSameVerdict(t *testing.T) {
	seeds := quietSeedCount(150, 25)
	for _, f := range plan.KubeletFamilies() {
		t.Run(f.Name, func(t *testing.T) {
			early, later := 0, map[string]int{}
			for seed := range seeds {
				quick, full, qm, fm, extra, wq, wf := settlePair(f, seed, "")
				for _, m := range extra {
					later[m]++
				}
				if !sameSettleVerdict(quick, full, qm, fm) {
					t.Fatalf("seed %d: verdict with the early end (quiet at %v)\n  %q %q\ndiffers from the full settle phase\n  %q %q",
						seed, quietTime(wq), quick, qm, full, fm)
				}
				if quietOf(wq) != quietOf(wf) || quietTime(wq) != quietTime(wf) {
					t.Fatalf("seed %d: the runs diverged before the quiet tick (%v at %v, %v at %v)",
						seed, quietOf(wq), quietTime(wq), quietOf(wf), quietTime(wf))
				}
				if quietOf(wq) {
					early++
				}
			}
			t.Logf("%d of %d seeds ended the settle phase early; marks the full phase reached only after the quiet tick (seeds): %v",
				early, seeds, later)
		})
	}
}

// settleEnd is how a test ends the settle phase: quietly (the early end),
// in full, or carelessly (one second after it began, whatever the world
// is doing: what a wrong quiescence check would do).
type settleEnd int

const (
	endQuietly settleEnd = iota
	endInFull
	endCarelessly
)

// plantedVerdict runs a planted liveness situation with its fault, every
// oracle judging, and ends the settle phase as told. The careless daemon
// runs in every mode (so that the runs are the same run until an end) and
// ends the phase only when told to.
func plantedVerdict(pl plan.Plan, p *lvPlant, end settleEnd) string {
	w := lvWorld(pl, p)
	w.SetSettleRules(world.SettleRules{Full: end == endInFull, TickIdle: true})
	w.S.GoDaemon("careless", func() {
		for !w.Settling() {
			w.S.Sleep(time.Second)
		}
		w.S.Sleep(time.Second)
		if end == endCarelessly {
			w.EndSettle()
		}
	})
	return fmt.Sprintf("%q", verdictOf(judge(plan.Family{Name: "planted"}, 7, w, CheckOptions{}, nil)))
}

// TestQuietSettlePlanted: every planted liveness fault (TestLivenessPlanted)
// gets the same verdict with the early end as with the full settle phase,
// and the comparison can fail: a careless end changes some verdict.
func TestQuietSettlePlanted(t *testing.T) {
	differ := 0
	for _, tt := range livenessPlanted {
		p := tt.situation.with(tt.fault)
		full := plantedVerdict(tt.plan, p, endInFull)
		if quick := plantedVerdict(tt.plan, p, endQuietly); quick != full {
			t.Errorf("%s: with the early end got %s, want the full phase's %s", tt.name, quick, full)
		}
		if plantedVerdict(tt.plan, p, endCarelessly) != full {
			differ++
		}
	}
	if differ == 0 {
		t.Error("ending the settle phase after one second gave every planted fault the full phase's verdict: " +
			"the comparison cannot tell a premature end")
	}
	t.Logf("a careless end changes %d of %d verdicts", differ, len(livenessPlanted))
}

// TestQuietSettle: the run of TestWorldSettles without quiet.full ends the
// settle phase once still for world.QuietFor, with no record left; a busy
// predicate that never clears keeps the full phase.
func TestQuietSettle(t *testing.T) {
	run := func(busy bool) (*world.World, *settleCounter) {
		pl := lvPlan(lvAct(0, plan.Create, "a"), lvAct(time.Second, plan.Remove, "a"))
		pl.Faults = plan.Faults{ErrorRate: 1000}
		st := plan.SeedStreams(3)
		w := world.NewWorld(pl, st.Schedule, st.Faults, sim.RandomWalk{})
		if busy {
			w.KeepBusy(func() bool { return true })
		}
		c := &settleCounter{w: w}
		w.Observe(c.Observe)
		if err := w.Run(); err != nil {
			t.Fatalf("run: got %v, want no error", err)
		}
		return w, c
	}
	w, c := run(false)
	switch f := w.View().Settle(); {
	case !quietOf(w):
		t.Fatal("the world never went quiet, want it quiet once the orphan is purged")
	case f.QuiesceAt-f.HealedAt < world.QuietFor || f.QuiesceAt-f.HealedAt >= world.SettleTime:
		t.Errorf("got a settle phase of %v, want at least world.QuietFor (%v) and less than SettleTime", f.QuiesceAt-f.HealedAt, world.QuietFor)
	case c.lastProbe == nil || len(c.lastProbe.KnownUIDs()) != 0:
		t.Errorf("got records of %v at the last release of the pod lock, want none", c.lastProbe.KnownUIDs())
	}
	if w, _ := run(true); quietOf(w) || w.View().Settle().QuiesceAt-w.View().Settle().HealedAt != world.SettleTime {
		t.Errorf("with a busy actor: got quiet %v, settle phase %v, want the full %v", quietOf(w),
			w.View().Settle().QuiesceAt-w.View().Settle().HealedAt, world.SettleTime)
	}
}

// quietOf reports whether w's settle phase ended early, quiescent.
func quietOf(w *world.World) bool {
	_, quiet := w.QuietAt()
	return quiet
}

// quietTime is when w's settle phase ended early (0 if it did not).
func quietTime(w *world.World) time.Duration {
	at, _ := w.QuietAt()
	return at
}

// TestQuietSettleMutants: with each catalogued mutant on, on the families
// its gate runs, the settle phase's shortcuts (the early end, repeatable
// resyncs, skipped quiet ticks: MutantShortcuts) give the detection (first
// violation, the invariants that fired) and the marks of the full ticking
// phase: the reasoning does not lean on the code being right to find the
// bug. It does lean on it for the exact list of messages: with a bug in,
// a "repeated" resync can pass through record states the first one did
// not and break an invariant again in new words (B7), which is why sweeps
// and the gate keep every tick of a mutant's run (quiet.World.AsWritten); the
// count of such runs is logged.
func TestQuietSettleMutants(t *testing.T) {
	seeds := quietSeedCount(8, 3)
	failing, differ, runs := 0, 0, 0
	for _, m := range Mutants() {
		if m.Kind == KindVK {
			continue // the VK world has no kubelet settle rules
		}
		for _, name := range m.Families {
			f, ok := plan.FamilyNamed(name)
			if !ok {
				t.Fatalf("mutant %s: no family %q", m.Name, name)
			}
			for seed := range seeds {
				quick, full, qm, fm, _, wq, wf := settlePair(f, seed, m.Name)
				if !slices.Equal(quick, full) {
					differ++
				}
				if !sameSettleVerdict(detection(quick), detection(full), qm, fm) {
					t.Fatalf("%s on %s seed %d: with the shortcuts (quiet at %v)\n  %q %q\ndiffers from the full settle phase\n  %q %q",
						m.Name, name, seed, quietTime(wq), quick, qm, full, fm)
				}
				if quietOf(wq) != quietOf(wf) || quietTime(wq) != quietTime(wf) {
					t.Fatalf("%s on %s seed %d: the runs diverged before the quiet tick (%v at %v, %v at %v)",
						m.Name, name, seed, quietOf(wq), quietTime(wq), quietOf(wf), quietTime(wf))
				}
				runs++
				if failed(quick) {
					failing++
				}
			}
		}
	}
	if failing == 0 {
		t.Error("no mutant's run failed: the comparison judged no failing verdict")
	}
	t.Logf("%d runs, %d failing; %d with another list of violation messages", runs, failing, differ)
}

// detection is what a verdict tells the gate: the scheduler's error, the
// first violation, and which oracles' invariants fired. A mutant's
// repeated resync may break an invariant again in another record state,
// a new message for a bug already caught (B7's S15 in the full phase).
func detection(verdict []string) []string {
	out := slices.Clone(verdict[:min(len(verdict), 2)])
	var fired []string
	for _, v := range verdict[1:] {
		if f := strings.Fields(v); len(f) >= 2 {
			fired = append(fired, f[0]+" "+f[1])
		}
	}
	slices.Sort(fired)
	return append(out, slices.Compact(fired)...)
}
