package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/podsim/podsim/guided"
	"github.com/podsim/podsim/plan"
)

// lanesFamilies are small families for the lanes' tests.
func lanesFamilies(t *testing.T) []plan.Family {
	t.Helper()
	var fams []plan.Family
	for _, name := range []string{"update-storm", "kill-during-create", "early-kill"} {
		f, err := familiesNamed(name)
		if err != nil {
			t.Fatal(err)
		}
		fams = append(fams, f...)
	}
	return fams
}

// guidedRun is what a test compares of a guided outcome.
func guidedRun(family string, seed uint64, trace string, tuples int) string {
	return fmt.Sprintf("%s/%d %s %d", family, seed, trace, tuples)
}

// oneAfterAnother is the reference: each family's loop in turn, one run at
// a time, straight from package guided; its corpora are saved under dir.
func oneAfterAnother(t *testing.T, fams []plan.Family, start, runs uint64, dir string) []string {
	t.Helper()
	var want []string
	for _, fam := range fams {
		c := guided.NewCorpus(fam.Name)
		guided.Loop(context.Background(), fam, c, guided.Options{Seed: start, Runs: runs, Parallel: 1}, func(o guided.Outcome) {
			want = append(want, guidedRun(fam.Name, o.Index, o.Result.TraceSHA, len(o.Result.Coverage.Tuples)))
		})
		if err := c.Save(dir); err != nil {
			t.Fatal(err)
		}
	}
	return want
}

// firstRuns is the reference for the first n runs of fam: fam's loop
// alone (start, runs), one run at a time, stopped once it has handed on n
// runs (it runs on to the end of that batch): an interrupted sweep hands
// on few of its runs, and a loop's first runs do not depend on when it is
// stopped.
func firstRuns(fam plan.Family, start, runs uint64, n int) []string {
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	var want []string
	guided.Loop(ctx, fam, guided.NewCorpus(fam.Name), guided.Options{Seed: start, Runs: runs, Parallel: 1}, func(o guided.Outcome) {
		want = append(want, guidedRun(fam.Name, o.Index, o.Result.TraceSHA, len(o.Result.Coverage.Tuples)))
		if len(want) == n {
			stop()
		}
	})
	return want
}

// lanesSweep runs guidedSweepWindow and returns what it emitted.
func lanesSweep(ctx context.Context, t *testing.T, p sweepPlan, f runFlags, window int, cancelAfter int,
	cancel func()) ([]string, uint64, error) {
	t.Helper()
	var got []string
	made, err := guidedSweepWindow(ctx, p, f, window, func(o outcome) {
		got = append(got, guidedRun(o.res.Family, o.res.Seed, o.res.TraceSHA, len(o.res.Coverage.Tuples)))
		if len(got) == cancelAfter {
			cancel()
		}
	})
	return got, made, err
}

func sameCorpora(t *testing.T, want, got string, fams []plan.Family) {
	t.Helper()
	for _, fam := range fams {
		a, err1 := os.ReadFile(guided.Path(want, fam.Name))
		b, err2 := os.ReadFile(guided.Path(got, fam.Name))
		if err1 != nil || err2 != nil || string(a) != string(b) {
			t.Fatalf("corpus of %s differs from the one-after-another loops' (%v, %v)", fam.Name, err1, err2)
		}
	}
}

// TestGuidedLanesAreOneLoopAfterAnother: families run side by side hand on
// the same outcomes, in the same order, and save the same corpora as each
// family's loop run alone one after another, one run at a time: at any
// --parallel, and with a window of 1 (every family ahead waits after each
// run) or 5; without --json the same but for the coverage and the trace
// hash of a passing run, which only a --json line prints (the runs are
// Lean, and none of the correct code's fails).
func TestGuidedLanesAreOneLoopAfterAnother(t *testing.T) {
	fams := lanesFamilies(t)
	ref := t.TempDir()
	want := oneAfterAnother(t, fams, 5, 20, ref)
	var withoutCoverage []string // without --json, a waiting outcome drops its coverage
	for _, r := range want {
		withoutCoverage = append(withoutCoverage, r[:strings.Index(r, " ")]+"  0") // guidedRun with no trace, no tuples
	}
	for _, c := range []struct {
		parallel, window int
		json             string
	}{{1, 8192, "r.json"}, {2, 1, "r.json"}, {3, 5, "r.json"}, {4, 8192, "r.json"}, {2, 8192, ""}} {
		dir := t.TempDir()
		p := newSweepPlan(fams, shard{0, 1}, 5, 20)
		f := runFlags{parallel: c.parallel, corpus: dir, jsonPath: c.json}
		got, made, err := lanesSweep(context.Background(), t, p, f, c.window, -1, nil)
		w := want
		if c.json == "" {
			w = withoutCoverage
		}
		if err != nil || made != 60 || !slices.Equal(got, w) {
			t.Fatalf("parallel %d, window %d, --json %q: %d runs, %v; outcomes equal to one loop after another: %v",
				c.parallel, c.window, c.json, made, err, slices.Equal(got, w))
		}
		sameCorpora(t, ref, dir, fams)
	}
}

// TestGuidedLanesInterruptKeepsEveryRun: interrupted while the first family
// runs, a sweep hands on, family by family, a prefix of each family's runs
// (the same runs as uninterrupted), and each family's saved corpus counts
// exactly the runs handed on: no run made is lost, none is skipped.
func TestGuidedLanesInterruptKeepsEveryRun(t *testing.T) {
	fams := lanesFamilies(t)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p := newSweepPlan(fams, shard{0, 1}, 1, 400)
	got, made, err := lanesSweep(ctx, t, p, runFlags{parallel: 3, corpus: dir, jsonPath: "r.json"}, 8192, 10, cancel)
	if err != nil || made != uint64(len(got)) || made < 10 || made >= 1200 {
		t.Fatalf("%d runs handed on (%d), %v: want at least 10, not all", made, len(got), err)
	}
	at := 0
	for _, fam := range fams {
		n := 0
		for at+n < len(got) && strings.HasPrefix(got[at+n], fam.Name+"/") {
			n++
		}
		if n > 0 {
			want := firstRuns(fam, 1, 400, n)
			for i := range n {
				if got[at+i] != want[i] {
					t.Fatalf("%s run %d: %s, want %s", fam.Name, i, got[at+i], want[i])
				}
			}
		}
		at += n
		c, err := guided.Load(dir, fam.Name)
		if err != nil || c.Runs != uint64(n) {
			t.Fatalf("%s: %d runs handed on, its corpus counts %d (%v)", fam.Name, n, c.Runs, err)
		}
	}
	if at != len(got) {
		t.Fatalf("outcome %d (%s) is out of family order", at, got[at])
	}
}

// TestGuidedLanesUnreadableCorpus: a family whose corpus cannot be read
// ends the sweep where a sequential sweep would: the families before it
// are handed on whole and saved, none after it is saved.
func TestGuidedLanesUnreadableCorpus(t *testing.T) {
	fams := lanesFamilies(t)
	dir := t.TempDir()
	if err := os.WriteFile(guided.Path(dir, fams[1].Name), []byte("not a corpus\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	want := oneAfterAnother(t, fams[:1], 2, 30, t.TempDir())
	p := newSweepPlan(fams, shard{0, 1}, 2, 30)
	got, made, err := lanesSweep(context.Background(), t, p, runFlags{parallel: 3, corpus: dir, jsonPath: "r.json"}, 8192, -1, nil)
	if err == nil || !strings.Contains(err.Error(), "--corpus") || made != 30 || !slices.Equal(got, want) {
		t.Fatalf("%d runs, %v; want the first family's 30 and a --corpus error", made, err)
	}
	if c, err := guided.Load(dir, fams[0].Name); err != nil || c.Runs != 30 {
		t.Fatalf("the first family's corpus: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, fams[2].Name+".corpus")); !os.IsNotExist(err) {
		t.Fatalf("the corpus of a family after the unreadable one was written: %v", err)
	}
}
