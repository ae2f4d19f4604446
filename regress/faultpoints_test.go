package regress

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/run"
	"github.com/podsim/podsim/sim"
)

// TestFaultPointScriptReplaysTheRecordedRun: a run made with the fault
// points armed, written as a script and read back, is the same run with
// the same points on, in every family; the script says so (the
// fault-points directive, the points on in each `run` output). Without the
// directive the same choices are another run: in some seed the trace
// differs (the fault plan's draws are read as the runtime's other faults),
// so the directive is what the replay needs.
func TestFaultPointScriptReplaysTheRecordedRun(t *testing.T) {
	armed := run.CheckOptions{FaultPoints: true}
	withPoints, differs, armedRuns := 0, 0, 0
	for _, f := range plan.Families() {
		for seed := uint64(0); seed < 3; seed++ {
			c, r := run.RecordSeed(f, seed, sim.RandomWalk{}, armed)
			script := RenderScript(Script{Strategy: sim.RandomWalk{}, Case: c, FaultPoints: true}, run.CheckOptions{})
			// A world without fault points (the virtual-kubelet one, so far)
			// runs unarmed: its outputs name none.
			listed := strings.Contains(script, "fault points on: "+pointsOn(r))
			if !strings.Contains(script, "\n"+FaultPointsDirective+"\n----\n") || listed != r.FaultPointsArmed ||
				strings.Contains(script, "fault points on") != listed {
				t.Fatalf("%s seed %d (points %v): the script does not record the fault points:\n%s", f.Name, seed, r.FaultPoints, script)
			}
			var s scriptRunner
			datadriven.RunTestFromString(t, script, s.directive)
			if !s.faultPoints {
				t.Fatalf("%s seed %d: the runner did not read the fault-points directive", f.Name, seed)
			}
			again := run.RunCase(s.c, s.st, armed)
			if again.TraceSHA != r.TraceSHA || strings.Join(again.FaultPoints, ",") != strings.Join(r.FaultPoints, ",") {
				t.Fatalf("%s seed %d: the script replays to another run (points %v, want %v)\n%s", f.Name, seed,
					again.FaultPoints, r.FaultPoints, script)
			}
			if len(r.FaultPoints) > 0 {
				withPoints++
			}
			if r.FaultPointsArmed {
				armedRuns++
			}
			if run.RunCase(s.c, s.st, run.CheckOptions{}).TraceSHA != r.TraceSHA {
				differs++
			}
		}
	}
	if withPoints == 0 || differs == 0 || armedRuns == 0 {
		t.Fatalf("%d runs armed, %d had a point on, %d differ without the directive: the test shows nothing",
			armedRuns, withPoints, differs)
	}
}

func pointsOn(r run.Result) string {
	if len(r.FaultPoints) == 0 {
		return "none"
	}
	return strings.Join(r.FaultPoints, ", ")
}

// TestScriptWithoutFaultPointsIsUnchanged: a script rendered without
// FaultPoints has no directive and no "fault points" line (the committed
// scripts' bytes stay), and its run is the unarmed one.
func TestScriptWithoutFaultPointsIsUnchanged(t *testing.T) {
	f := familyNamed(t, "update-storm")
	c, r := run.RecordSeed(f, 0, sim.RandomWalk{}, run.CheckOptions{})
	script := RenderScript(Script{Strategy: sim.RandomWalk{}, Case: c}, run.CheckOptions{})
	if strings.Contains(script, FaultPointsDirective) || strings.Contains(script, "fault points") {
		t.Fatalf("an unarmed script mentions the fault points:\n%s", script)
	}
	var s scriptRunner
	datadriven.RunTestFromString(t, script, s.directive)
	if s.faultPoints || run.RunCase(s.c, s.st, run.CheckOptions{}).TraceSHA != r.TraceSHA {
		t.Fatal("an unarmed script replays armed or to another run")
	}
}

// TestFaultPointsDirectiveTakesNothing: the directive with an argument or
// an input is refused.
func TestFaultPointsDirectiveTakesNothing(t *testing.T) {
	for _, td := range []datadriven.TestData{
		{Cmd: FaultPointsDirective, CmdArgs: []datadriven.CmdArg{{Key: "slow-sync-under-kill"}}},
		{Cmd: FaultPointsDirective, Input: "slow-sync-under-kill"},
	} {
		if err := checkFaultPointsDirective(&td); err == nil {
			t.Errorf("%+v accepted", td)
		}
	}
	if err := checkFaultPointsDirective(&datadriven.TestData{Cmd: FaultPointsDirective}); err != nil {
		t.Errorf("the bare directive refused: %v", err)
	}
}

// TestCommittedFaultPointScriptNeedsTheDirective: the committed script of
// a failure found with the fault points armed (made by simrun shrink
// --fault-points) fails with its mutant only armed: read without its
// fault-points directive, the same plan and choices pass, so the directive
// is what makes it replay to its verdict.
func TestCommittedFaultPointScriptNeedsTheDirective(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "force-delete-failing-terminate-seed30-g4-fp.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var s scriptRunner
	datadriven.RunTestFromString(t, string(data), s.directive)
	armed := run.RunCase(s.c, s.st, run.CheckOptions{Mutant: "G4", FaultPoints: true})
	unarmed := run.RunCase(s.c, s.st, run.CheckOptions{Mutant: "G4"})
	if !s.faultPoints || !armed.Failed() || unarmed.Failed() || !slices.Equal(armed.FaultPoints, []string{"slow-sync-under-kill"}) {
		t.Fatalf("directive read %v; armed: failed=%v points %v; unarmed: failed=%v (want armed failing with slow-sync-under-kill, unarmed passing)",
			s.faultPoints, armed.Failed(), armed.FaultPoints, unarmed.Failed())
	}
}
