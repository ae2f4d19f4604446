package guided

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/podsim/podsim/oracle/coverage"
	"github.com/podsim/podsim/run"
)

// TestRecordIsTheRunsInput: a run over Record's streams draws what the
// simulated target's own recording says (RunInput), and the recorded
// input gives the same run again.
func TestRecordIsTheRunsInput(t *testing.T) {
	f := familyNamed("kill-during-create")
	for seed := uint64(1); seed <= 4; seed++ {
		for _, in := range []Input{SeedInput(seed), {Faults: Stream{Choices: []int{3, 0, 999}, Tail: seed, Seeded: true, Bias: 4}}} {
			want, r := RunInput(f, in, run.CheckOptions{})
			rec := Record(in)
			_, _, again, _ := run.RecordStreams(f, rec.Streams(), Strategy, run.CheckOptions{})
			if got := rec.Input(); got.Token() != want.Token() || again.TraceSHA != r.TraceSHA {
				t.Fatalf("seed %d: recorded %s, the run's own recording %s", seed, got.Token(), want.Token())
			}
			if _, replayed := RunInput(f, rec.Input(), run.CheckOptions{}); replayed.TraceSHA != r.TraceSHA {
				t.Fatalf("seed %d: the recorded input ran to trace %s, not %s", seed, replayed.TraceSHA, r.TraceSHA)
			}
		}
	}
}

// toyRunner is a target that is no world at all: a run draws up to 12
// choices of 4 from the plan stream and 3 of 2 from the faults, reaches a
// tuple per distinct (position, choice) pair it drew before its first
// zero, and fails when it drew 3,3,3 first. The loop must work on it
// through the Runner interface alone.
type toyRunner struct{}

func (toyRunner) Family() string { return "toy" }

func (toyRunner) Run(_ uint64, in Input) Ran[string] {
	rec := Record(in)
	st := rec.Streams()
	var tuples []string
	var drawn []int
	for i := 0; i < 12; i++ {
		c := st.Plan.Intn(4)
		drawn = append(drawn, c)
		if c == 0 {
			break
		}
		tuples = append(tuples, fmt.Sprintf("%02d=%d", i, c))
	}
	for range 3 {
		st.Faults.Intn(2)
	}
	slices.Sort(tuples)
	var trans [][2]int
	for i := 1; i < len(tuples); i++ {
		trans = append(trans, [2]int{i - 1, i})
	}
	failed := len(drawn) >= 3 && slices.Equal(drawn[:3], []int{3, 3, 3})
	return Ran[string]{Input: rec.Input(), Coverage: coverage.Coverage{Tuples: tuples, Transitions: trans}, Failed: failed,
		Result: fmt.Sprint(drawn)}
}

// TestWalkDrivesAnyRunner: Walk over a target that is no world keeps
// entries, mutates them, gives the same steps and corpus at parallel 1
// and 4, resumes from a saved corpus to the same steps, and reports
// failures as the runner says.
func TestWalkDrivesAnyRunner(t *testing.T) {
	walk := func(c *Corpus, seed, runs uint64, parallel int) []Step[string] {
		var out []Step[string]
		Walk(context.Background(), toyRunner{}, c, Options{Seed: seed, Runs: runs, Parallel: parallel}, func(s Step[string]) { out = append(out, s) })
		return out
	}
	print := func(steps []Step[string]) []string {
		var out []string
		for _, s := range steps {
			out = append(out, fmt.Sprintf("%d %s %s %d %v %v", s.Index, s.Input.Token(), s.Result, s.New, s.Fresh, s.Failed))
		}
		return out
	}
	c1, c4 := NewCorpus("toy"), NewCorpus("toy")
	a, b := walk(c1, 3, 96, 1), walk(c4, 3, 96, 4)
	if !slices.Equal(print(a), print(b)) || string(corpusBytes(t, c1)) != string(corpusBytes(t, c4)) {
		t.Fatal("same seed, other steps or corpus at parallel 1 and 4")
	}
	if len(c1.Entries) < 4 || c1.MutatedRuns == 0 || c1.MutatedHits == 0 {
		t.Fatalf("%d entries, %d mutated runs, %d of them new: no feedback", len(c1.Entries), c1.MutatedRuns, c1.MutatedHits)
	}
	failed := 0
	for _, s := range a {
		want := len(s.Input.Plan.Choices) >= 3 && slices.Equal(s.Input.Plan.Choices[:3], []int{3, 3, 3})
		if s.Failed != want {
			t.Fatalf("step %d: failed %v for drawn %s", s.Index, s.Failed, s.Result)
		}
		if s.Failed {
			failed++
		}
	}
	dir := t.TempDir()
	half := NewCorpus("toy")
	parts := walk(half, 3, 48, 2)
	if err := half.Save(dir); err != nil {
		t.Fatal(err)
	}
	resumed, err := Load(dir, "toy")
	if err != nil {
		t.Fatal(err)
	}
	parts = append(parts, walk(resumed, 3, 48, 2)...)
	if !slices.Equal(print(a), print(parts)) {
		t.Fatal("a resumed walk made other steps than one walk")
	}
	t.Logf("toy: %d entries, %d tuples, %d failing runs of 96", len(c1.Entries), c1.Tuples(), failed)
}

// TestWalkDirResumes: two walks of 48 runs over a saved corpus are the
// same steps and the same corpus as one walk of 96; without a directory
// nothing is saved.
func TestWalkDirResumes(t *testing.T) {
	var one, two []string
	note := func(out *[]string) func(Step[string]) {
		return func(s Step[string]) { *out = append(*out, fmt.Sprintf("%d %s %d", s.Index, s.Input.Token(), s.New)) }
	}
	whole, err := WalkDir(context.Background(), toyRunner{}, "", Options{Seed: 9, Runs: 96, Parallel: 2}, note(&one))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for range 2 {
		if _, err := WalkDir(context.Background(), toyRunner{}, dir, Options{Seed: 9, Runs: 48, Parallel: 2}, note(&two)); err != nil {
			t.Fatal(err)
		}
	}
	saved, err := Load(dir, "toy")
	if err != nil || !slices.Equal(one, two) || string(corpusBytes(t, whole)) != string(corpusBytes(t, saved)) {
		t.Fatalf("two saved walks of 48 differ from one of 96 (%v)", err)
	}
}

// TestAnnouncedNamesEachRunFirst: an announced runner hears every run's
// index before the loop sees the run (at parallelism 1 in order, one run
// at a time, the loop's batches emitting later), and the input it hears, run again,
// gives the run the loop saw (so a tool that names the run it died in by
// that input names a run that replays). The loop itself is unchanged.
func TestAnnouncedNamesEachRunFirst(t *testing.T) {
	var heard []uint64
	inputs := map[uint64]Input{}
	r := Announced[string](toyRunner{}, func(i uint64, in Input) { heard, inputs[i] = append(heard, i), in })
	var plain, seen []string
	Walk(context.Background(), toyRunner{}, NewCorpus("toy"), Options{Seed: 5, Runs: 40, Parallel: 1}, func(s Step[string]) {
		plain = append(plain, s.Input.Token()+" "+s.Result)
	})
	Walk(context.Background(), r, NewCorpus("toy"), Options{Seed: 5, Runs: 40, Parallel: 1}, func(s Step[string]) {
		if !slices.Contains(heard, s.Index) {
			t.Fatalf("run %d reached the loop before it was announced (heard %v)", s.Index, heard)
		}
		if again := (toyRunner{}).Run(0, inputs[s.Index]); again.Result != s.Result {
			t.Fatalf("run %d: its announced input %s runs to %q, the loop saw %q", s.Index, inputs[s.Index].Token(), again.Result, s.Result)
		}
		seen = append(seen, s.Input.Token()+" "+s.Result)
	})
	for i, h := range heard {
		if h != uint64(i) {
			t.Fatalf("announced %v: at parallelism 1 each run is announced as it starts, in order", heard)
		}
	}
	if len(heard) != 40 || !slices.Equal(plain, seen) {
		t.Errorf("%d runs announced of 40; the loop's runs the same as without: %v", len(heard), slices.Equal(plain, seen))
	}
}
