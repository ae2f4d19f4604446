package realkubelet

import (
	"flag"
	"fmt"
	"os"
	"testing"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/realdriver"
	"github.com/podsim/podsim/realkubelet/script"
)

var (
	shrinkFamily = flag.String("shrink.family", "", "family of the seed to shrink (TestShrinkSeed)")
	shrinkSeed   = flag.Uint64("shrink.seed", 0, "seed to shrink")
	shrinkClass  = flag.String("shrink.class", "", "keep findings of this class (\"\" = unexplained)")
	shrinkInv    = flag.String("shrink.invariant", "", "and of this invariant (optional)")
)

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
// with -shrink.family and -shrink.seed.
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
	r := Bubble(t, func() Result { return RunSeedWith(fam, *shrinkSeed, toolOptions(t)) })
	keep := func(r Result) bool { return hasFinding(r, *shrinkClass, *shrinkInv) }
	if !keep(r) {
		t.Fatalf("seed %d of %s has no finding of class %q", *shrinkSeed, fam.Name, *shrinkClass)
	}
	small := realdriver.Shrink(r.Moves, func(m []script.Move) Result { return runScript(t, m) }, keep)
	final := runScript(t, small)
	header := fmt.Sprintf("# shrunk from %s seed %d (%d moves → %d)\n", fam.Name, *shrinkSeed, len(r.Moves), len(small))
	realdriver.Transcript(os.Stdout, header, script.Format(small), final.Findings, "# trace:\n", final.Trace)
}

var replaySeed = flag.Bool("replay", false, "TestReplaySeed: print -shrink.family/-shrink.seed's script, findings and trace")

// TestReplaySeed prints one seed's run as a script, its findings and its
// canonical trace (a tool: -replay -shrink.family F -shrink.seed S).
func TestReplaySeed(t *testing.T) {
	if !*replaySeed {
		t.Skip("tool: needs -replay, -shrink.family and -shrink.seed")
	}
	for _, f := range plan.KubeletFamilies() {
		if f.Name != *shrinkFamily {
			continue
		}
		r := Bubble(t, func() Result { return RunSeedWith(f, *shrinkSeed, toolOptions(t)) })
		header := fmt.Sprintf("# %s seed %d, trace sha256 %s\n", f.Name, *shrinkSeed, r.TraceSHA)
		realdriver.Transcript(os.Stdout, header, script.Format(r.Moves), r.Findings, "", r.Trace)
		return
	}
	t.Fatalf("unknown family %q", *shrinkFamily)
}
