package run

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/check"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/oracle/linearize"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
	"github.com/podsim/podsim/world"
)

// recorded is one run of a seed with only the recorder attached: the
// history, the world (for its trace) and how the run ended.
type recorded struct {
	h      history.History
	w      *world.World
	runErr error
}

// recordSeed runs one seed of a family with a Recorder and nothing else, so
// that these tests judge the recorder and the model, not the other oracles
// (whose files other people change).
func recordSeed(f plan.Family, seed uint64, strategy sim.Strategy) recorded {
	st := plan.SeedStreams(seed)
	w := world.NewWorld(f.Generate(st.Plan), st.Schedule, st.Faults, strategy)
	rec := history.NewRecorder()
	w.Observe(func(ev history.Event) { rec.Observe(&ev) })
	err := w.Run()
	return recorded{h: rec.History(), w: w, runErr: err}
}

func familyNamed(t testing.TB, name string) plan.Family {
	t.Helper()
	f, ok := plan.FamilyNamed(name)
	if !ok {
		t.Fatalf("no family %q", name)
	}
	return f
}

// TestLinearizeDebugSeed prints the witness of one seed: set
// PODSIM_DEBUG_SEED=family/seed (e.g. swarm/1719) to look at a failure.
func TestLinearizeDebugSeed(t *testing.T) {
	spec := os.Getenv("PODSIM_DEBUG_SEED")
	if spec == "" {
		t.Skip("set PODSIM_DEBUG_SEED=family/seed")
	}
	name, seedText, _ := strings.Cut(spec, "/")
	seed, err := strconv.ParseUint(seedText, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	f := familyNamed(t, name)
	r := recordSeed(f, seed, sim.RandomWalk{})
	v := linearize.CheckHistory(r.h, linearize.Options{ForcePorcupine: true})
	fmt.Println(f.Generate(plan.SeedStreams(seed).Plan))
	fmt.Printf("run error: %v\nverdict: %s witness=%v (%s) porcupine=%s\n", r.runErr, v.Result, v.Witness, v.Mode, v.Porcupine)
	if ok, at, reason := check.Replay(r.h.Witness()); !ok {
		fmt.Printf("with markers: fails at %d: %s\n", at, reason)
	}
	fmt.Print(linearize.WitnessText(r.h, v))
	if os.Getenv("PODSIM_DEBUG_LIN") != "" {
		for p, part := range v.Info.PartialLinearizationsOperations() {
			for _, lin := range part {
				fmt.Printf("partition %d linearization:\n", p)
				for _, op := range lin {
					fmt.Printf("  [%d,%d] %s\n", op.Call, op.Return, check.DescribeOperation(op.Input, asModelOutput(op.Output)))
				}
			}
		}
	}
	if os.Getenv("PODSIM_DEBUG_TRACE") != "" {
		fmt.Print(r.w.S.Trace())
	}
}

func asModelOutput(out any) ops.Output {
	o, _ := out.(ops.Output)
	return o
}
