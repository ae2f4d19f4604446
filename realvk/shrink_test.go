package realvk

import (
	"flag"
	"fmt"
	"os"
	"testing"
	"testing/synctest"

	"github.com/podsim/podsim/guided"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/realdriver"
	"github.com/podsim/podsim/realvk/script"
)

var (
	shrinkFamily = flag.String("shrink.family", "", "TestShrinkSeed/TestReplaySeed: the VK family")
	shrinkSeed   = flag.Uint64("shrink.seed", 0, "TestShrinkSeed/TestReplaySeed: the seed")
	shrinkClass  = flag.String("shrink.class", "", "TestShrinkSeed: keep a finding of this class (\"\" = unexplained)")
	shrinkCheck  = flag.String("shrink.check", "", "TestShrinkSeed: and of this check (VK1…VK7; optional)")
	replaySeed   = flag.Bool("replay", false, "TestReplaySeed: print the seed's script, findings and trace")
	shrinkInput  = flag.String("shrink.input", "", "TestShrinkSeed/TestReplaySeed: a guided run's input token instead of a seed")
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
		return runInput(t, f, in), "input " + *shrinkInput
	}
	var r Result
	synctest.Test(t, func(t *testing.T) { r = RunSeed(f, *shrinkSeed) })
	return r, fmt.Sprintf("seed %d", *shrinkSeed)
}

func replay(t *testing.T, moves []script.Move) Result {
	t.Helper()
	var r Result
	synctest.Test(t, func(t *testing.T) { r = RunMoves(moves) })
	return r
}

func hasFinding(r Result, class, check string) bool {
	for _, f := range r.Findings {
		if f.Class == class && (check == "" || f.Check == check) {
			return true
		}
	}
	return false
}

func familyNamed(t *testing.T, name string) plan.Family {
	for _, f := range plan.VKFamilies() {
		if f.Name == name {
			return f
		}
	}
	t.Fatalf("unknown VK family %q", name)
	return plan.Family{}
}

// TestShrinkSeed shrinks one seed's script to a minimal one that keeps a
// finding of the given class and check, and prints it with its findings
// and trace (a tool: -shrink.family F -shrink.seed S [-shrink.class C]).
func TestShrinkSeed(t *testing.T) {
	if *shrinkFamily == "" || *replaySeed {
		t.Skip("tool: needs -shrink.family and -shrink.seed")
	}
	f := familyNamed(t, *shrinkFamily)
	r, which := toolRun(t, f)
	keep := func(r Result) bool { return hasFinding(r, *shrinkClass, *shrinkCheck) }
	if !keep(r) {
		t.Fatalf("%s of %s has no finding of class %q check %q", which, f.Name, *shrinkClass, *shrinkCheck)
	}
	small := realdriver.Shrink(r.Moves, func(m []script.Move) Result { return replay(t, m) }, keep)
	final := replay(t, small)
	header := fmt.Sprintf("# shrunk from %s %s (%d moves -> %d)\n", f.Name, which, len(r.Moves), len(small))
	realdriver.Transcript(os.Stdout, header, script.Format(small), final.Findings, "", final.Trace)
}

// TestReplaySeed prints one seed's run: script, findings, trace (a tool:
// -replay -shrink.family F -shrink.seed S).
func TestReplaySeed(t *testing.T) {
	if !*replaySeed {
		t.Skip("tool: needs -replay, -shrink.family and -shrink.seed")
	}
	f := familyNamed(t, *shrinkFamily)
	r, which := toolRun(t, f)
	header := fmt.Sprintf("# %s %s, trace sha256 %s\n", f.Name, which, r.TraceSHA)
	realdriver.Transcript(os.Stdout, header, script.Format(r.Moves), r.Findings, "", r.Trace)
}
