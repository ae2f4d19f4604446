package realkubelet

import (
	"flag"
	"slices"
	"testing"
	"testing/synctest"

	"github.com/podsim/podsim/plan"
)

// TestSameSeedSameHistory: the seed alone decides the run. 200 seeds spread
// over the families, each run twice in fresh bubbles, must give the same
// canonical trace (SHA-256) and findings; and replaying the run's script
// must give the same trace again (the script is a faithful replay). Half
// the seeds hold the workers' wake-ups (wakes.go).
func TestSameSeedSameHistory(t *testing.T) {
	fams := plan.KubeletFamilies()
	seeds := 200
	if testing.Short() {
		seeds = 50
	}
	for i := range seeds {
		f, seed := fams[i%len(fams)], uint64(1000+i)
		// Every other seed holds the workers' wake-ups too (wakes.go).
		o := RunOptions{HoldWakes: i%2 == 1}
		var a, b Result
		synctest.Test(t, func(t *testing.T) { a = RunSeedWith(f, seed, o) })
		synctest.Test(t, func(t *testing.T) { b = RunSeedWith(f, seed, o) })
		if a.TraceSHA != b.TraceSHA || len(a.Trace) != len(b.Trace) {
			t.Fatalf("%s seed %d: traces differ (%s vs %s)\n%s", f.Name, seed, a.TraceSHA, b.TraceSHA, firstDiff(a.Trace, b.Trace))
		}
		if len(a.Findings) != len(b.Findings) {
			t.Fatalf("%s seed %d: %d findings then %d", f.Name, seed, len(a.Findings), len(b.Findings))
		}
		if s := runScript(t, a.Moves); s.TraceSHA != a.TraceSHA {
			t.Fatalf("%s seed %d: replaying the script changed the trace\n%s", f.Name, seed, firstDiff(a.Trace, s.Trace))
		}
	}
}

var (
	detSeeds   = flag.Int("det.seeds", 0, "TestSameSeedSameHistoryWide: seeds per family and mode")
	detRepeats = flag.Int("det.repeats", 3, "TestSameSeedSameHistoryWide: runs of each seed")
)

// TestSameSeedSameHistoryWide is the one-off wide form of the test above
// (a tool: -det.seeds N): every kubelet family × N seeds × both modes,
// each run -det.repeats times, must give one trace and one set of finding
// keys; it logs the number of runs.
func TestSameSeedSameHistoryWide(t *testing.T) {
	if *detSeeds == 0 {
		t.Skip("tool: needs -det.seeds N")
	}
	runs := 0
	for _, f := range plan.KubeletFamilies() {
		for _, hold := range []bool{false, true} {
			for i := range *detSeeds {
				seed, o := uint64(i), RunOptions{HoldWakes: hold}
				first := Bubble(t, func() Result { return RunSeedWith(f, seed, o) })
				for range *detRepeats - 1 {
					r := Bubble(t, func() Result { return RunSeedWith(f, seed, o) })
					if r.TraceSHA != first.TraceSHA || !slices.Equal(GateKeys(r), GateKeys(first)) {
						t.Errorf("%s seed %d hold=%v: traces differ (%s vs %s)\n%s", f.Name, seed, hold, first.TraceSHA, r.TraceSHA, firstDiff(first.Trace, r.Trace))
					}
				}
				runs += *detRepeats
			}
		}
	}
	t.Logf("%d families × %d seeds × 2 modes × %d runs = %d runs", len(plan.KubeletFamilies()), *detSeeds, *detRepeats, runs)
}

// TestDeterminismCheckCanFail: the trace SHA does depend on what happened:
// two different seeds of a family give different traces.
func TestDeterminismCheckCanFail(t *testing.T) {
	f := plan.KubeletFamilies()[0]
	if a, b := runSeed(t, f, 1), runSeed(t, f, 2); a.TraceSHA == b.TraceSHA {
		t.Fatalf("seeds 1 and 2 of %s have the same trace SHA %s", f.Name, a.TraceSHA)
	}
}

func firstDiff(a, b []string) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return "first difference:\n  " + a[i] + "\n  " + b[i]
		}
	}
	return "one trace is a prefix of the other"
}
