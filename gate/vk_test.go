package gate

import (
	"strings"
	"testing"

	"github.com/podsim/podsim/run"
)

// VKMaxStory is the longest shrunk story accepted for a VK mutant.
const VKMaxStory = 10

// TestVKMutantsShrinkToShortStories: the gate catches every VK mutant from
// two start seeds, and the first detection shrinks to a story of at most
// VKMaxStory actions.
func TestVKMutantsShrinkToShortStories(t *testing.T) {
	var names []string
	for _, m := range run.Mutants() {
		if m.Kind == run.KindVK {
			names = append(names, m.Name)
		}
	}
	if len(names) == 0 {
		t.Fatal("no VK mutant in the catalogue")
	}
	rows, err := Check(Options{Seeds: 100, StartSeeds: 2, Parallel: 2, Mutants: names})
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rows {
		if !row.Caught() {
			t.Errorf("mutant %s survived: %+v", row.Mutant.Name, row.Starts)
			continue
		}
		for _, d := range row.Starts {
			if !firedExpected(row.Mutant, d.Invariants) {
				t.Errorf("mutant %s: caught by %v, want one of %v", row.Mutant.Name, d.Invariants, row.Mutant.Invariants)
			}
		}
		n := row.Starts[0].ShrunkLength
		if n < 1 || n > VKMaxStory {
			t.Errorf("mutant %s: shrunk story has %d actions, want 1..%d", row.Mutant.Name, n, VKMaxStory)
		}
		t.Logf("%s: runs-to-detection %v, shrunk to %d actions (first: %s)", row.Mutant.Name, runsOf(row), n,
			strings.Join(row.Starts[0].Invariants, ","))
	}
}

func runsOf(r Row) []int {
	var out []int
	for _, d := range r.Starts {
		out = append(out, d.Runs)
	}
	return out
}
