package guided

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/run"
)

// The "rerun" column of TestMeasureDetection: the way a CI job gates a
// change (simrun run --strategy guided --corpus DIR --rerun-corpus), a
// corpus grown on the correct code run again first on the mutant. It is
// the protocol the hard mutants were counted by (docs/guided.md): loop
// seed 7,000,000 + start, PODSIM_GUIDED_GROW runs (default 20,000).

// growSeed is the first growth loop's seed; start k·1,000,000 grows with
// growSeed + k·1,000,000.
const growSeed = 7_000_000

// rerunCorpora is where the rerun column keeps its corpora
// (PODSIM_GUIDED_CORPORA) and how many runs grow each (PODSIM_GUIDED_GROW).
type rerunCorpora struct {
	dir  string
	grow uint64
}

// grownCorpus returns family f's corpus for start, grown on the correct
// code (fault points armed if fp, as the rerun's are) and saved under
// cs.dir, or loaded from there when an earlier call grew it. Each call
// returns its own copy: a rerun merges into it.
func grownCorpus(f plan.Family, start uint64, fp bool, cs rerunCorpora) *Corpus {
	dir := cs.at(fp, start)
	if _, err := os.Stat(Path(dir, f.Name)); err != nil {
		c := NewCorpus(f.Name)
		Loop(context.Background(), f, c, Options{Seed: growSeed + start, Runs: cs.grow, Parallel: 2,
			Check: run.CheckOptions{FaultPoints: fp}}, func(Outcome) {})
		if err := c.Save(dir); err != nil {
			panic(err)
		}
	}
	c, err := Load(dir, f.Name)
	if err != nil {
		panic(err)
	}
	return c
}

// at is where grownCorpus keeps the corpora of one growth.
func (cs rerunCorpora) at(fp bool, start uint64) string {
	return filepath.Join(cs.dir, fmt.Sprintf("grow%d-fp%t-start%d", cs.grow, fp, start))
}

// TestGrownCorpus: the rerun column's corpus is grown once on the correct
// code and saved; each later call loads what is saved into a corpus of its
// own (a rerun merges into what it gets, never into the saved one).
func TestGrownCorpus(t *testing.T) {
	f, cs := familyNamed("early-kill"), rerunCorpora{dir: t.TempDir(), grow: 40}
	a := grownCorpus(f, 0, false, cs)
	if a.Runs != 40 || len(a.Entries) == 0 {
		t.Fatalf("grown corpus: %d runs, %d entries; want 40 runs and some entries", a.Runs, len(a.Entries))
	}
	grown := a.Bytes()
	Loop(context.Background(), f, a, Options{Seed: 1, Runs: 5, Replay: true, Check: run.CheckOptions{Mutant: "B2"}}, func(Outcome) {})
	if b := grownCorpus(f, 0, false, cs); !bytes.Equal(b.Bytes(), grown) {
		t.Fatalf("after a rerun of the first call's corpus the second call's differs from it as grown:\n%s\nwant\n%s", b.Bytes(), grown)
	}
	if err := a.Save(cs.at(false, 0)); err != nil { // the saved corpus is now the rerun one
		t.Fatal(err)
	}
	if c := grownCorpus(f, 0, false, cs); !bytes.Equal(c.Bytes(), a.Bytes()) || bytes.Equal(c.Bytes(), grown) {
		t.Fatalf("the third call grew its corpus again instead of loading the saved one")
	}
	if c := grownCorpus(f, 1_000_000, false, cs); bytes.Equal(c.Bytes(), grown) {
		t.Fatalf("start 1,000,000 grew the same corpus as start 0")
	}
}
