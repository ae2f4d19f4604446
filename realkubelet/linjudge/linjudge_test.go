package linjudge

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/deviation"
	"github.com/podsim/podsim/realkubelet/tape"
)

// TestStepOf: a seq belongs to the last step that began at or before it;
// one before the first step belongs to none (0).
func TestStepOf(t *testing.T) {
	starts := []int64{0, 3, 7, 8}
	for seq, want := range map[int64]int{1: 0, 2: 0, 3: 1, 6: 1, 7: 2, 8: 3, 20: 3} {
		if got := StepOf(starts, seq); got != want {
			t.Errorf("StepOf(%v, %d) = %d, want %d", starts, seq, got, want)
		}
	}
}

// TestCheckTakesTheSharedVerdictOnlyWithoutDeviationsOrAdoptions: with no
// deviation and no process with GE adoptions, the shared oracle's
// violations are the verdict, each at its step; once a process had an
// adoption (or deviations are named), the history is judged again and the
// shared verdict does not count (here the history is empty, so nothing is
// left).
func TestCheckTakesTheSharedVerdictOnlyWithoutDeviationsOrAdoptions(t *testing.T) {
	start := time.Unix(0, 0)
	h := tape.New(func() time.Time { return start }, nil)
	shared := []history.Violation{{Oracle: "linearizability", Message: "forged", Seq: 1}}
	run := Run{Shared: func() []history.Violation { return shared }, Tape: h, Starts: []int64{1},
		Ghosts: []map[types.UID]int{nil}, StepStart: []int64{0, 1}, Step: 1, PorcupineTimeout: time.Second}
	if v := Check(run, 0); len(v.Findings) != 1 || v.Findings[0].Step != 1 || v.Dev != 0 {
		t.Fatalf("no deviation, no adoption: %+v, want the shared violation at step 1", v)
	}
	adopted := run
	adopted.Ghosts = []map[types.UID]int{{"a": 1}}
	if v := Check(adopted, 0); len(v.Findings) != 0 {
		t.Errorf("with an adoption: %+v, want the history judged again (no findings)", v)
	}
	if v := Check(run, deviation.GA); len(v.Findings) != 0 || v.Dev != deviation.GA {
		t.Errorf("with GA named: %+v, want the history judged again with GA (no findings)", v)
	}
}
