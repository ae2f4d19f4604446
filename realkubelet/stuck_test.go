package realkubelet

import (
	"strings"
	"testing"

	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/realkubelet/finding"
	"github.com/podsim/podsim/realkubelet/script"
	"github.com/podsim/podsim/realkubelet/syncgate"
)

// TestStuckWorkerIsAFinding: a worker that can never be torn down (its
// SyncTerminatedPod never returns, so the real podWorkerLoop never ends)
// used to crash the run when the bubble closed. Now the run ends with an
// unexplained L2 finding naming the stuck goroutine, where it waits and the
// pod's last step, and the next run in the same test works.
func TestStuckWorkerIsAFinding(t *testing.T) {
	moves, _, err := script.Parse("create a\nrelease a ok\ndelete a grace=5\nrelease a ok\n")
	if err != nil {
		t.Fatal(err)
	}
	r := Bubble(t, func() Result {
		d := NewDriver()
		d.gates.NeverReturn = func(c *syncgate.Call) bool { return c.UID == "a" && c.Fn == ops.SyncTerminatedPod }
		for _, m := range moves {
			d.Apply(m)
		}
		d.planSteps = len(d.Moves)
		return d.Finish("script", 0)
	})
	var stuck []finding.Finding
	for _, f := range r.Unexplained() {
		if f.Invariant == "L2" && strings.Contains(f.Message, "cannot be torn down") {
			stuck = append(stuck, f)
		}
	}
	if len(stuck) != 1 {
		t.Fatalf("want one unexplained stuck-goroutine finding, got %v", r.Findings)
	}
	for _, want := range []string{"k8s.io/kubernetes/pkg/kubelet.(*podWorkers).podWorkerLoop", "pod_workers.go:",
		"update channel still open for pod a, last step 4 (release a ok)"} {
		if !strings.Contains(stuck[0].Message, want) {
			t.Errorf("finding %q does not name %q", stuck[0].Message, want)
		}
	}
	// The sweep goes on: the next run, in a new bubble, is clean.
	if next := Bubble(t, func() Result { return RunMoves(moves) }); len(next.Unexplained()) != 0 {
		t.Fatalf("the run after the stuck one: %v", next.Findings)
	}
}

// TestCleanRunsHaveNoStuckGoroutine is the negative case: seeds of every
// family tear down completely (no teardown finding in either mode).
func TestCleanRunsHaveNoStuckGoroutine(t *testing.T) {
	for i, f := range plan.Families() {
		r := Bubble(t, func() Result { return RunSeedWith(f, uint64(i+1), RunOptions{HoldWakes: i%2 == 1}) })
		for _, fd := range r.Findings {
			if strings.HasPrefix(fd.Message, teardownPrefix) {
				t.Errorf("%s seed %d: %s", f.Name, i+1, fd)
			}
		}
	}
}
