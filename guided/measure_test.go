package guided

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/run"
	"github.com/podsim/podsim/sim"
)

// The side-by-side measurement of the strategies (make guided-measure):
// skipped unless PODSIM_GUIDED_MEASURE is set. Each mutant runs against its
// families round robin (run i is family i mod n), from several start
// seeds; seeds to detection counts runs up to and including the first
// failing one, as the gate does.

func familyNamed(name string) plan.Family {
	for _, f := range plan.Families() {
		if f.Name == name {
			return f
		}
	}
	panic("no family " + name)
}

func envInt(t *testing.T, name string, def int) int {
	if v := os.Getenv(name); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("%s=%q: %v", name, v, err)
		}
		return n
	}
	return def
}

// failures runs budget runs of one family under strategy name from start
// and returns which run indices failed. A name ending in "+fp" arms the
// fault points (run.CheckOptions.FaultPoints). "rerun" runs again first
// the corpus of start grown on the correct code (grownCorpus, kept under
// corpora), then goes on guided.
func failures(f plan.Family, name string, start uint64, budget int, mutant string, corpora rerunCorpora) []bool {
	name, fp := strings.CutSuffix(name, "+fp")
	opts := run.CheckOptions{Mutant: mutant, FaultPoints: fp}
	failed := make([]bool, budget)
	if name == "guided" || name == "rerun" {
		c, o := NewCorpus(f.Name), Options{Seed: start, Runs: uint64(budget), Parallel: 2, Check: opts}
		if name == "rerun" {
			c, o.Replay = grownCorpus(f, start, fp, corpora), true
		}
		base := c.Runs // a corpus's run indices go on from its history's
		Loop(context.Background(), f, c, o, func(out Outcome) { failed[out.Index-base] = out.Result.Failed() })
		return failed
	}
	var st sim.Strategy = sim.RandomWalk{}
	if d, ok := strings.CutPrefix(name, "pct"); ok {
		depth, _ := strconv.Atoi(d)
		st = sim.PCT{Depth: depth, Steps: 2000}
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for i := range failed {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			failed[i] = run.RunSeed(f, start+uint64(i), st, opts).Failed()
		}()
	}
	wg.Wait()
	return failed
}

type cell struct {
	failed, runs int
	detect       []int // per start: runs to the first failure, 0 if none
}

func (c cell) String() string {
	ds := make([]string, len(c.detect))
	found := []int{}
	for i, d := range c.detect {
		ds[i] = "-"
		if d > 0 {
			ds[i] = strconv.Itoa(d)
			found = append(found, d)
		}
	}
	med := "-"
	if len(found)*2 > len(c.detect) {
		sorted := slices.Clone(c.detect)
		for i, d := range sorted {
			if d == 0 {
				sorted[i] = 1 << 30
			}
		}
		slices.Sort(sorted)
		med = strconv.Itoa(sorted[len(sorted)/2])
	}
	return fmt.Sprintf("%d/%d (%.1f%%), median %s (%s)", c.failed, c.runs, 100*float64(c.failed)/float64(c.runs), med,
		strings.Join(ds, ","))
}

// measure runs one mutant under one strategy from starts start seeds.
func measure(m run.Mutant, name string, starts, budget int, corpora rerunCorpora) cell {
	var c cell
	n := len(m.Families)
	for k := 0; k < starts; k++ {
		per := (budget + n - 1) / n
		first := 0
		for fi, fam := range m.Families {
			for i, bad := range failures(familyNamed(fam), name, uint64(k)*1_000_000, per, m.Name, corpora) {
				if i*n+fi >= budget {
					break
				}
				c.runs++
				if bad {
					c.failed++
					if idx := i*n + fi + 1; first == 0 || idx < first {
						first = idx
					}
				}
			}
		}
		c.detect = append(c.detect, first)
	}
	return c
}

func TestMeasureDetection(t *testing.T) {
	if os.Getenv("PODSIM_GUIDED_MEASURE") == "" {
		t.Skip("PODSIM_GUIDED_MEASURE not set (make guided-measure)")
	}
	starts, budget := envInt(t, "PODSIM_GUIDED_STARTS", 5), envInt(t, "PODSIM_GUIDED_BUDGET", 200)
	strategies := strings.Split(cmpOr(os.Getenv("PODSIM_GUIDED_STRATEGIES"), "random,pct3,guided"), ",")
	only := os.Getenv("PODSIM_GUIDED_MUTANTS")
	grow := envInt(t, "PODSIM_GUIDED_GROW", 20_000)
	if grow <= 0 {
		t.Fatalf("PODSIM_GUIDED_GROW=%d: want a positive count of runs", grow)
	}
	corpora := rerunCorpora{dir: cmpOr(os.Getenv("PODSIM_GUIDED_CORPORA"), t.TempDir()), grow: uint64(grow)}
	fmt.Printf("| mutant | %s |\n|---|%s\n", strings.Join(strategies, " | "), strings.Repeat("---|", len(strategies)))
	for _, m := range run.Mutants() {
		if only != "" && !slices.Contains(strings.Split(only, ","), m.Name) {
			continue
		}
		row := []string{m.Name}
		for _, s := range strategies {
			row = append(row, measure(m, s, starts, budget, corpora).String())
		}
		fmt.Printf("| %s |\n", strings.Join(row, " | "))
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// TestMeasureCoverage prints, per family, the distinct tuples and
// transitions the union of the first N runs reached, random seeds 0..N-1
// against the guided loop of seed 0, at each N of PODSIM_GUIDED_AT
// (default 100,1000), and counts failures (on the correct code: false
// alarms).
func TestMeasureCoverage(t *testing.T) {
	if os.Getenv("PODSIM_GUIDED_MEASURE") == "" {
		t.Skip("PODSIM_GUIDED_MEASURE not set (make guided-measure)")
	}
	var at []int
	for _, s := range strings.Split(cmpOr(os.Getenv("PODSIM_GUIDED_AT"), "100,1000"), ",") {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatal(err)
		}
		at = append(at, n)
	}
	last := at[len(at)-1]
	only := os.Getenv("PODSIM_GUIDED_FAMILIES")
	fmt.Println("| family | strategy | " + strings.Trim(fmt.Sprint(at), "[]") + " (tuples/transitions) | failed |")
	for _, f := range plan.Families() {
		if only != "" && !slices.Contains(strings.Split(only, ","), f.Name) {
			continue
		}
		for _, name := range []string{"random", "guided"} {
			growth := newGrowth()
			var cells []string
			record := func(i int, r run.Result) {
				growth.add(r)
				if slices.Contains(at, i+1) {
					cells = append(cells, fmt.Sprintf("%d/%d", len(growth.tuples), len(growth.trans)))
				}
			}
			if name == "guided" {
				Loop(context.Background(), f, NewCorpus(f.Name), Options{Runs: uint64(last), Parallel: 2},
					func(o Outcome) { record(int(o.Index), o.Result) })
			} else {
				for i := 0; i < last; i++ {
					record(i, run.RunSeed(f, uint64(i), sim.RandomWalk{}, run.CheckOptions{}))
				}
			}
			fmt.Printf("| %s | %s | %s | %d |\n", f.Name, name, strings.Join(cells, " "), growth.failed)
		}
	}
}

type growth struct {
	tuples, trans map[string]bool
	failed        int
}

func newGrowth() *growth { return &growth{tuples: map[string]bool{}, trans: map[string]bool{}} }

func (g *growth) add(r run.Result) {
	for _, t := range r.Coverage.Tuples {
		g.tuples[t] = true
	}
	for _, t := range r.Coverage.TransitionKeys() {
		g.trans[t] = true
	}
	if r.Failed() {
		g.failed++
	}
}
