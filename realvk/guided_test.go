package realvk

import (
	"context"
	"fmt"
	"os"
	"testing"
	"testing/synctest"

	"github.com/podsim/podsim/guided"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/realdriver"
)

// guidedRunner is the real virtual-kubelet controller as a
// guided.Runner: VK family f's plans over the loop's inputs
// (guided.Record's streams), each run in a bubble of its own under t.
type guidedRunner struct {
	t *testing.T
	f plan.Family
}

func (g guidedRunner) Family() string { return g.f.Name }

// Run runs in; the result's Seed is the loop's index.
func (g guidedRunner) Run(index uint64, in guided.Input) guided.Ran[Result] {
	rec := guided.Record(in)
	st := rec.Streams()
	var r Result
	synctest.Test(g.t, func(*testing.T) { r = RunPlan(g.f.Name, index, g.f.Generate(st.Plan), st) })
	return guided.Ran[Result]{Input: rec.Input(), Coverage: r.Coverage, Failed: r.Failed(), Result: r}
}

// runInput runs one guided input of f again (a token a guided sweep
// printed).
func runInput(t *testing.T, f plan.Family, in guided.Input) Result {
	return guidedRunner{t, f}.Run(0, in).Result
}

// verdict is what a sweep keeps of r.
func verdict(r Result) realdriver.SeedVerdict {
	return realdriver.SeedVerdict{Failed: r.Failed(), Classes: classesOf(r), Unexplained: realdriver.Stringers(r.Unexplained()),
		Tuples: r.Coverage.Tuples, Transitions: r.Coverage.TransitionKeys()}
}

// guidedSweep runs the guided loop (loop seed start, runs runs) of each VK
// family it is handed on the real controller, each family's corpus loaded
// from and saved to dir if dir is not "", and hands every run's verdict
// on; a run with an unexplained finding also logs its input token
// (TestReplaySeed -shrink.input replays it).
func guidedSweep(t *testing.T, start uint64, runs int, dir string) func(plan.Family, func(uint64, realdriver.SeedVerdict)) {
	return func(f plan.Family, emit func(uint64, realdriver.SeedVerdict)) {
		c := guided.NewCorpus(f.Name)
		if dir != "" {
			var err error
			if c, err = guided.Load(dir, f.Name); err != nil {
				t.Fatal(err)
			}
		}
		guided.Walk(context.Background(), guidedRunner{t, f}, c, guided.Options{Seed: start, Runs: uint64(runs), Parallel: 1},
			func(s guided.Step[Result]) {
				if *verbose {
					for _, fd := range s.Result.Findings {
						t.Logf("%s run %d: %s", f.Name, s.Index, fd)
					}
				}
				if len(s.Result.Unexplained()) > 0 {
					t.Logf("%s run %d: input %s", f.Name, s.Index, s.Input.Token())
				}
				emit(s.Index, verdict(s.Result))
			})
		if dir != "" {
			if err := c.Save(dir); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// walk makes runs guided runs of f on the real controller.
func walk(t *testing.T, f plan.Family, c *guided.Corpus, seed, runs uint64, parallel int) []guided.Step[Result] {
	t.Helper()
	var out []guided.Step[Result]
	guided.Walk(context.Background(), guidedRunner{t, f}, c, guided.Options{Seed: seed, Runs: runs, Parallel: parallel},
		func(s guided.Step[Result]) { out = append(out, s) })
	return out
}

// fingerprint is a guided run as bytes: index, input, trace, new keys,
// findings.
func fingerprint(s guided.Step[Result]) string {
	return fmt.Sprintf("%d %s %s %d %v", s.Index, s.Input.Token(), s.Result.TraceSHA, s.New, classesOf(s.Result))
}

func corpusText(t *testing.T, c *guided.Corpus) string {
	t.Helper()
	dir := t.TempDir()
	if err := c.Save(dir); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(guided.Path(dir, c.Family))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
