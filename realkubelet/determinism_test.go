package realkubelet

import (
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
