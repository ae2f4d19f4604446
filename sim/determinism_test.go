package sim

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
)

var rewrite = flag.Bool("rewrite", false, "rewrite golden files in testdata/")

const determinismSeeds = 1000

// sweepDigest runs the contention program for seeds [0, n) under both
// strategies, twice each, fails on any run whose two traces differ, and
// returns one digest of every trace hash in seed order.
func sweepDigest(t *testing.T, n int) string {
	t.Helper()
	all := sha256.New()
	for seed := uint64(0); seed < uint64(n); seed++ {
		for _, st := range []Strategy{RandomWalk{}, PCT{Depth: 3, Steps: 300}} {
			opts := Options{Source: NewPCG(seed), Strategy: st}
			h1, err := runProgram(opts, contention)
			if err != nil {
				t.Fatalf("seed %d %v: %v", seed, st, err)
			}
			opts.Source = NewPCG(seed)
			h2, _ := runProgram(opts, contention)
			if h1 != h2 {
				t.Fatalf("seed %d %v: trace hashes differ between two runs: %s vs %s", seed, st, h1, h2)
			}
			fmt.Fprintf(all, "%d %v %s\n", seed, st, h1)
		}
	}
	return hex.EncodeToString(all.Sum(nil))
}

// TestDeterminismGolden pins the digest of 1,000 seeds × 2 strategies in
// testdata/determinism.golden. `make test` and `make race` both run it, so
// the same bytes come out with and without -race, on any machine; the
// GOMAXPROCS test below runs it at 1 and 2. Rewrite with -rewrite after a
// deliberate change to the scheduler or the program.
func TestDeterminismGolden(t *testing.T) {
	got := sweepDigest(t, determinismSeeds)
	const path = "testdata/determinism.golden"
	if *rewrite {
		if err := os.WriteFile(path, []byte(got+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -rewrite to create it)", err)
	}
	if got != strings.TrimSpace(string(want)) {
		t.Fatalf("digest of %d seeds: got %s, want %s", determinismSeeds, got, strings.TrimSpace(string(want)))
	}
}

// TestDeterminismAcrossGOMAXPROCS runs the sweep with one and two Ps.
func TestDeterminismAcrossGOMAXPROCS(t *testing.T) {
	n := 200
	if testing.Short() {
		n = 50
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	runtime.GOMAXPROCS(1)
	one := sweepDigest(t, n)
	runtime.GOMAXPROCS(2)
	two := sweepDigest(t, n)
	if one != two {
		t.Fatalf("GOMAXPROCS=1 digest %s, GOMAXPROCS=2 digest %s", one, two)
	}
}

// TestDifferentSeedsDiffer guards the determinism tests against a program
// whose trace ignores the schedule (which would make them pass trivially).
func TestDifferentSeedsDiffer(t *testing.T) {
	seen := map[string]uint64{}
	for seed := uint64(0); seed < 50; seed++ {
		h, err := runProgram(Options{Source: NewPCG(seed)}, contention)
		if err != nil {
			t.Fatal(err)
		}
		seen[h] = seed
	}
	if len(seen) < 45 {
		t.Fatalf("got %d distinct traces from 50 seeds, want at least 45", len(seen))
	}
}

// TestReplayReproducesRun records a run's choices and replays them: the
// replay must produce the same trace without drawing past the record.
func TestReplayReproducesRun(t *testing.T) {
	for seed := uint64(0); seed < 100; seed++ {
		rec := NewRecorder(NewPCG(seed))
		h1, err := runProgram(Options{Source: rec}, contention)
		if err != nil {
			t.Fatal(err)
		}
		rp := NewReplay(rec.Choices())
		h2, _ := runProgram(Options{Source: rp}, contention)
		if h1 != h2 {
			t.Fatalf("seed %d: replay trace %s, want %s", seed, h2, h1)
		}
		if rp.Exhausted() != 0 || rp.Clamped() != 0 {
			t.Fatalf("seed %d: replay exhausted %d, clamped %d; want 0, 0", seed, rp.Exhausted(), rp.Clamped())
		}
	}
}
