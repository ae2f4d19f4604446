package realvk

import (
	"flag"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/podsim/podsim/guided"
	"github.com/podsim/podsim/plan"
)

var (
	detSeeds = flag.Int("det", 0, "TestSameSeedSameTrace: seeds (0 = 40, or 8 with -short)")
	detFrom  = flag.Int("det.from", 0, "TestSameSeedSameTrace: first seed index")
)

// TestSameSeedSameTrace: the seed alone decides the run. Seeds spread
// over the VK families (10 each by default), each run twice in fresh
// bubbles, must give the same trace, byte for byte, and findings, and
// replaying the run's script must give the same trace again. `make realvk-det` runs it over
// 1,000 seeds at GOMAXPROCS 1, 2 and 4.
func TestSameSeedSameTrace(t *testing.T) {
	fams := plan.VKFamilies()
	seeds := 40
	if testing.Short() {
		seeds = 8
	}
	if *detSeeds > 0 {
		seeds = *detSeeds
	}
	for i := *detFrom; i < *detFrom+seeds; i++ {
		f, seed := fams[i%len(fams)], uint64(1+i)
		var a, b Result
		synctest.Test(t, func(t *testing.T) { a = RunSeed(f, seed) })
		synctest.Test(t, func(t *testing.T) { b = RunSeed(f, seed) })
		if traceBytes(a) != traceBytes(b) {
			t.Fatalf("%s seed %d: traces differ\n%s", f.Name, seed, firstDiff(a.Trace, b.Trace))
		}
		if len(a.Findings) != len(b.Findings) {
			t.Fatalf("%s seed %d: %d findings then %d", f.Name, seed, len(a.Findings), len(b.Findings))
		}
		var s Result
		synctest.Test(t, func(t *testing.T) { s = RunMoves(a.Moves) })
		if traceBytes(s) != traceBytes(a) {
			t.Fatalf("%s seed %d: replaying the script changed the trace\n%s", f.Name, seed, firstDiff(a.Trace, s.Trace))
		}
		if *detSeeds > 0 {
			t.Logf("%s seed %d %s", f.Name, seed, a.TraceSHA)
		}
	}
}

// TestDeterminismCheckCanFail: the trace depends on what happened: two
// seeds of a family give different traces.
func TestDeterminismCheckCanFail(t *testing.T) {
	f := plan.VKFamilies()[0]
	var a, b Result
	synctest.Test(t, func(t *testing.T) { a = RunSeed(f, 1) })
	synctest.Test(t, func(t *testing.T) { b = RunSeed(f, 2) })
	if a.TraceSHA == b.TraceSHA {
		t.Fatalf("seeds 1 and 2 of %s have the same trace %s", f.Name, a.TraceSHA)
	}
}

func traceBytes(r Result) string { return strings.Join(r.Trace, "\n") }

func firstDiff(a, b []string) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return "first difference:\n  " + a[i] + "\n  " + b[i]
		}
	}
	return "one trace is a prefix of the other"
}

// pollDeadlineInput is a guided vk-swarm input (met growing a corpus in
// session 32) whose notification poll reaches its 20th tick, the instant
// its deadline fires too.
const pollDeadlineInput = "g1:JI4rUgRBEERfZvVvZrtnHMeDqyxgcDgMCgmXQaIJIOYGaKLZKlevMl4CNxZz53RENgRpngwmBUgpsElcXsMBlpFInsQXYKdA0syEkJWAB6nvFVY6jUZhozFY2VCTE12dGEiLM5VFJy9KIa_k3T65TxULzRoUVTpj9pODKrQRhBZVDSr6VwSDocSGaVR2OnD1Gfe6PuucX_NT-Sjf5agv6V235ajP-c2PuqtH_Sq_8ZP_AgAA__8"

// TestPollDeadlineOneWay: the same input gives the same trace in fresh
// bubbles when a notification's poll ticks at its own deadline. Before
// pollContext.Err read the deadline off the clock, about half of the runs
// parked the poll once more (the tick's goroutine ran before the timer's
// cancel) and the other half did not.
func TestPollDeadlineOneWay(t *testing.T) {
	f := familyNamed(t, "vk-swarm")
	in, err := guided.ParseToken(pollDeadlineInput)
	if err != nil {
		t.Fatal(err)
	}
	first := runInput(t, f, in).TraceSHA
	for i := range 10 {
		if got := runInput(t, f, in).TraceSHA; got != first {
			t.Fatalf("run %d: trace %s, first run %s", i+2, got, first)
		}
	}
}
