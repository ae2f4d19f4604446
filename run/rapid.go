package run

import (
	"pgregory.net/rapid"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
	"github.com/podsim/podsim/world"
)

// MaxRapidChoices bounds the choice list rapid draws for one run; a run
// that needs more gets 0 ("keep running, no fault") past the end.
const MaxRapidChoices = 4096

// CheckRapid runs one run of family f whose every choice — the plan, each
// scheduling decision, each fault — comes from one list drawn by rt, and
// fails rt with the story of the run (the plan and every violation) if any
// check fails. rapid shrinks that list by deleting and lowering entries;
// choice 0 keeps the running goroutine going and injects no fault, so the
// shrunk run has the fewest actions, preemptions and faults rapid can find.
//
// The list is drawn before the run, not draw by draw during it: rapid
// reports running out of data and its own failures by panicking inside
// Draw, which must happen on the test goroutine, not on a simulated one.
func CheckRapid(rt *rapid.T, f plan.Family, strategy sim.Strategy, opts CheckOptions) {
	choices := rapid.SliceOfN(rapid.IntRange(0, 1<<15), 0, MaxRapidChoices).Draw(rt, "choices")
	src := sim.NewReplay(choices)
	plan := f.Generate(src)
	var r Result
	if plan.VK != nil {
		r, _ = runVK(f.Name, 0, plan, src, src, strategy, opts, nil)
	} else {
		r = judge(f, 0, world.NewWorld(plan, src, src, strategy), opts, nil)
	}
	if r.Failed() {
		rt.Fatalf("%s\n%s", r, storyOf(plan, r))
	}
}
