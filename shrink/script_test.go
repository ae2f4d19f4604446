package shrink

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/regress"
	"github.com/podsim/podsim/run"
	"github.com/podsim/podsim/sim"
)

// rewrite re-renders the planted script (no datadriven test in this
// package registers the flag).
var rewrite = flag.Bool("rewrite", false, "rewrite regress/testdata/planted-kill-during-syncpod.txt")

// TestPlantedShrinkScript shrinks a real run with a planted failure (a
// pod killed while its SyncPod runs) and checks the script it renders is
// the one saved in regress/testdata, byte for byte: Shrink and the script
// format are deterministic end to end. -rewrite saves it anew.
func TestPlantedShrinkScript(t *testing.T) {
	f := familyNamed(t, "swarm")
	c := firstSeedReaching(t, f, plan.MarkKillDuringSyncPod)
	s, err := shrinkWith(c, sim.RandomWalk{}, run.CheckOptions{}, Options{}, planted(plan.MarkKillDuringSyncPod, "P1"))
	if err != nil {
		t.Fatal(err)
	}
	got := regress.RenderScript(regress.Script{
		Command:  "go test ./shrink -run TestPlantedShrinkScript -rewrite",
		Notes:    []string{"A swarm run shrunk under a planted oracle that fails when a pod is killed during", "its SyncPod: the story that reaches kill-during-syncpod, which the correct code passes."},
		Strategy: sim.RandomWalk{}, Case: s.Case, Marks: true,
	}, run.CheckOptions{})
	path := filepath.Join("..", regress.RegressDir, "planted-kill-during-syncpod.txt")
	if *rewrite {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Fatalf("the planted shrink renders differently from %s (go test ./shrink -run TestPlantedShrinkScript -rewrite):\n%s", path, got)
	}
	if !strings.Contains(got, plan.MarkKillDuringSyncPod) {
		t.Fatalf("the shrunk story no longer reaches %s:\n%s", plan.MarkKillDuringSyncPod, got)
	}
}
