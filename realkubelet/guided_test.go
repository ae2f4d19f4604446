package realkubelet

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/podsim/podsim/guided"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/realdriver"
	"github.com/podsim/podsim/realkubelet/planted"
)

// guidedRunner is the real pod workers as a guided.Runner: family f's
// plans over the loop's inputs (guided.Record's streams), each run in a
// bubble of its own under t, with the run options opts.
type guidedRunner struct {
	t    *testing.T
	f    plan.Family
	opts RunOptions
}

func (g guidedRunner) Family() string { return g.f.Name }

// Run runs in; the result's Seed is the loop's index.
func (g guidedRunner) Run(index uint64, in guided.Input) guided.Ran[Result] {
	nameRun(g.f.Name, index)
	rec := guided.Record(in)
	st := rec.Streams()
	opts := g.opts
	opts.NearMisses = true // the corpus keeps near misses' owners, as guided.Loop's
	r := Bubble(g.t, func() Result { return RunPlan(g.f.Name, index, g.f.Generate(st.Plan), st, opts) })
	return guided.Ran[Result]{Input: rec.Input(), Coverage: r.Coverage, Failed: r.Failed(), Result: r}
}

// runInput runs one guided input of f again (a token a guided sweep
// printed).
func runInput(t *testing.T, f plan.Family, in guided.Input, opts RunOptions) Result {
	return guidedRunner{t, f, opts}.Run(0, in).Result
}

// verdict is what a sweep keeps of r.
func verdict(r Result) realdriver.SeedVerdict {
	return realdriver.SeedVerdict{Failed: r.Failed(), Classes: r.Classes(), Unexplained: realdriver.Stringers(r.Unexplained()),
		Tuples: r.Coverage.Tuples, Transitions: r.Coverage.TransitionKeys()}
}

// guidedSweep runs the guided loop (loop seed start, runs runs) of each
// family it is handed on the real pod workers with opts, each family's
// corpus loaded from and saved to dir if dir is not "" (its kept entries
// run again first with -sweep.rerun), and hands every
// run's verdict on; a run with an unexplained finding also logs its input
// token (TestReplaySeed -shrink.input replays it), and with -sweep.inputs
// every run with a finding is written to that file (TestBaseInputs).
func guidedSweep(t *testing.T, opts RunOptions, start uint64, runs int, dir string) func(plan.Family, func(uint64, realdriver.SeedVerdict)) {
	inputs := inputFlags.Open(t)
	return func(f plan.Family, emit func(uint64, realdriver.SeedVerdict)) {
		_, err := guided.WalkDir(context.Background(), guidedRunner{t, f, opts}, dir, guided.Options{Seed: start, Runs: uint64(runs), Parallel: 1, Replay: *sweepRerun},
			func(s guided.Step[Result]) {
				if len(s.Result.Unexplained()) > 0 {
					t.Logf("%s run %d: input %s", f.Name, s.Index, s.Input.Token())
				}
				if inputs != nil && len(s.Result.Findings) > 0 {
					l := realdriver.InputLine{Family: f.Name, Run: s.Index, Token: s.Input.Token(), Keys: GateKeys(s.Result)}
					if err := realdriver.WriteInput(inputs, l); err != nil {
						t.Fatal(err)
					}
				}
				emit(s.Index, verdict(s.Result))
			})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// corpusDir is where a guided sweep in these options keeps its corpora
// under dir: one directory per wake-up mode and component set, so the
// sweeps of `make real-sweep` never share a corpus.
func corpusDir(dir string, opts RunOptions, real string) string {
	if dir == "" {
		return ""
	}
	mode := realdriver.ModeName(opts.HoldWakes)
	if real != "all" {
		mode += "-" + real
	}
	return filepath.Join(dir, mode)
}

// fingerprint is a guided run as bytes: index, input, trace, new keys.
func fingerprint(s guided.Step[Result]) string {
	return fmt.Sprintf("%d %s %s %d %v", s.Index, s.Input.Token(), s.Result.TraceSHA, s.New, s.Result.Classes())
}

// walk makes runs guided runs of f on the real pod workers.
func walk(t *testing.T, f plan.Family, opts RunOptions, c *guided.Corpus, seed, runs uint64, parallel int) []guided.Step[Result] {
	t.Helper()
	var out []guided.Step[Result]
	guided.Walk(context.Background(), guidedRunner{t, f, opts}, c, guided.Options{Seed: seed, Runs: runs, Parallel: parallel},
		func(s guided.Step[Result]) { out = append(out, s) })
	return out
}

// TestGuidedOnRealKubelet: the guided loop on the real pod workers gives
// the same runs and the same corpus bytes for the same loop seed, one run
// at a time or two, with held wake-ups too; another seed gives other
// runs; the corpus grows from mutated inputs as well as fresh seeds; and
// a kept entry run again is the same run.
func TestGuidedOnRealKubelet(t *testing.T) {
	for _, c := range []struct {
		family string
		opts   RunOptions
	}{{"grace-shortening", RunOptions{}}, {"static-fullname-chain", RunOptions{HoldWakes: true}}} {
		f := familyNamed(t, c.family)
		c1, c2 := guided.NewCorpus(f.Name), guided.NewCorpus(f.Name)
		a, b := walk(t, f, c.opts, c1, 5, 40, 1), walk(t, f, c.opts, c2, 5, 40, 2)
		for i := range a {
			if fingerprint(a[i]) != fingerprint(b[i]) {
				t.Fatalf("%s: same loop seed, run %d differs at parallel 1 and 2:\n%s\n%s", f.Name, i, fingerprint(a[i]), fingerprint(b[i]))
			}
		}
		if !bytes.Equal(c1.Bytes(), c2.Bytes()) {
			t.Fatalf("%s: same loop seed, other corpus bytes", f.Name)
		}
		if other := walk(t, f, c.opts, guided.NewCorpus(f.Name), 6, 8, 1); fingerprint(other[0]) == fingerprint(a[0]) {
			t.Fatalf("%s: loop seeds 5 and 6 made the same first run", f.Name)
		}
		if len(c1.Entries) < 3 || c1.Tuples() == 0 || c1.Transitions() == 0 || c1.MutatedRuns == 0 || c1.MutatedHits == 0 {
			t.Fatalf("%s: %d entries, %d tuples, %d transitions, %d mutated runs (%d new): the corpus does not grow",
				f.Name, len(c1.Entries), c1.Tuples(), c1.Transitions(), c1.MutatedRuns, c1.MutatedHits)
		}
		last := c1.Entries[len(c1.Entries)-1]
		var joined guided.Step[Result]
		for _, s := range a {
			if s.Input.Token() == last.Input.Token() {
				joined = s
			}
		}
		if again := runInput(t, f, last.Input, c.opts); again.TraceSHA != joined.Result.TraceSHA || again.TraceSHA == "" {
			t.Fatalf("%s: the newest entry ran again to trace %s, %s when it joined", f.Name, again.TraceSHA, joined.Result.TraceSHA)
		}
		t.Logf("%s: 40 runs, %d entries, %d tuples, %d transitions", f.Name, len(c1.Entries), c1.Tuples(), c1.Transitions())
	}
}

// TestGuidedFindsPlantedBugs: the guided loop finds each of two bugs
// planted in the driver (plant.go) as an unexplained finding, with a
// mutated input (not only a fresh seed's, which is random's run); the
// failing run's recorded input fails the same way again, and passes
// without the bug.
func TestGuidedFindsPlantedBugs(t *testing.T) {
	for _, c := range []struct {
		bug    planted.Bug
		family string
	}{{planted.IdleCacheOnRestart, "kubelet-restart-terminal-pods"}, {planted.EarlyTerminate, "recreate-same-name"}} {
		f := familyNamed(t, c.family)
		opts := RunOptions{plant: c.bug}
		var found *guided.Step[Result]
		for _, s := range walk(t, f, opts, guided.NewCorpus(f.Name), 1, 64, 1) {
			if len(s.Result.Unexplained()) > 0 && !s.Fresh && !s.Replay {
				found = &s
				break
			}
		}
		if found == nil {
			t.Fatalf("planted bug %d survived 64 guided runs (mutated inputs) of %s", c.bug, f.Name)
		}
		again := runInput(t, f, found.Input, opts)
		if again.TraceSHA != found.Result.TraceSHA || len(again.Unexplained()) == 0 {
			t.Fatalf("planted bug %d: the failing input ran again to trace %s (%d unexplained), %s before",
				c.bug, again.TraceSHA, len(again.Unexplained()), found.Result.TraceSHA)
		}
		if clean := runInput(t, f, found.Input, RunOptions{}); len(clean.Unexplained()) > 0 {
			t.Fatalf("planted bug %d: the input fails without the bug: %v", c.bug, clean.Unexplained())
		}
		t.Logf("planted bug %d in %s: found at guided run %d (a mutation): %s", c.bug, f.Name, found.Index, found.Result.Unexplained()[0])
	}
}
