package realkubelet

import (
	"flag"
	"fmt"
	"os"
	"testing"

	"github.com/podsim/podsim/guided"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/realdriver"
	"github.com/podsim/podsim/realkubelet/script"
)

var (
	shrinkFamily = flag.String("shrink.family", "", "family of the seed to shrink (TestShrinkSeed)")
	shrinkSeed   = flag.Uint64("shrink.seed", 0, "seed to shrink")
	shrinkClass  = flag.String("shrink.class", "", "keep findings of this class (\"\" = unexplained)")
	shrinkInv    = flag.String("shrink.invariant", "", "and of this invariant (optional)")
	shrinkInput  = flag.String("shrink.input", "", "a guided run's input token instead of -shrink.seed (TestShrinkSeed, TestReplaySeed)")
)

// toolRun is the run the tools work on: -shrink.input's if given, else
// -shrink.seed's, of family f; and how to name it.
func toolRun(t *testing.T, f plan.Family) (Result, string) {
	t.Helper()
	if *shrinkInput != "" {
		in, err := guided.ParseToken(*shrinkInput)
		if err != nil {
			t.Fatalf("-shrink.input: %v", err)
		}
		return runInput(t, f, in, toolOptions(t)), "input " + *shrinkInput
	}
	return Bubble(t, func() Result { return RunSeedWith(f, *shrinkSeed, toolOptions(t)) }), fmt.Sprintf("seed %d", *shrinkSeed)
}

func runScript(t *testing.T, moves []script.Move) Result {
	t.Helper()
	o := toolOptions(t)
	r := Bubble(t, func() Result { return RunMovesWith(moves, o) })
	return r
}

func hasFinding(r Result, class, invariant string) bool {
	for _, f := range r.Findings {
		if f.Class == class && (invariant == "" || f.Invariant == invariant) {
			return true
		}
	}
	return false
}

// TestShrinkSeed shrinks one seed's script to a minimal one that keeps a
// finding of the given class and prints it with its trace; a tool, run
// with -shrink.family and -shrink.seed (or -shrink.input, a guided run's
// token).
func TestShrinkSeed(t *testing.T) {
	if *shrinkFamily == "" {
		t.Skip("tool: needs -shrink.family and -shrink.seed")
	}
	var fam plan.Family
	for _, f := range plan.KubeletFamilies() {
		if f.Name == *shrinkFamily {
			fam = f
		}
	}
	if fam.Generate == nil {
		t.Fatalf("unknown family %q", *shrinkFamily)
	}
	r, name := toolRun(t, fam)
	keep := func(r Result) bool { return hasFinding(r, *shrinkClass, *shrinkInv) }
	if !keep(r) {
		t.Fatalf("%s of %s has no finding of class %q", name, fam.Name, *shrinkClass)
	}
	small := realdriver.Shrink(r.Moves, func(m []script.Move) Result { return runScript(t, m) }, keep)
	final := runScript(t, small)
	header := fmt.Sprintf("# shrunk from %s %s (%d moves → %d)\n", fam.Name, name, len(r.Moves), len(small))
	realdriver.Transcript(os.Stdout, header, script.Format(small), final.Findings, "# trace:\n", final.Trace)
}

var replaySeed = flag.Bool("replay", false, "TestReplaySeed: print -shrink.family/-shrink.seed's script, findings and trace")

// TestReplaySeed prints one seed's run as a script, its findings and its
// canonical trace (a tool: -replay -shrink.family F -shrink.seed S, or
// -shrink.input TOKEN for a guided run).
func TestReplaySeed(t *testing.T) {
	if !*replaySeed {
		t.Skip("tool: needs -replay, -shrink.family and -shrink.seed")
	}
	for _, f := range plan.KubeletFamilies() {
		if f.Name != *shrinkFamily {
			continue
		}
		r, name := toolRun(t, f)
		header := fmt.Sprintf("# %s %s, trace sha256 %s\n", f.Name, name, r.TraceSHA)
		realdriver.Transcript(os.Stdout, header, script.Format(r.Moves), r.Findings, "", r.Trace)
		return
	}
	t.Fatalf("unknown family %q", *shrinkFamily)
}
