package realkubelet

import (
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/deviation"
	"github.com/podsim/podsim/realkubelet/linjudge"
)

// PorcupineTimeout bounds porcupine's search for one history (it runs only
// when the witness replay fails); a timeout is a finding, never a pass.
var PorcupineTimeout = 5 * time.Second

// judgeHistory is the run's linearizability verdict (package linjudge:
// the shared oracle's, judged again under the deviations dev the direct
// checks showed, with GE's cut and GA's retrial).
func (d *Driver) judgeHistory(dev deviation.Set, catalogue []string) linjudge.Verdict {
	return linjudge.Judge(d.judged(), dev, catalogue)
}

// judged is what the verdict reads of the run: the shared oracle's
// Finish, the tape with where each kubelet process (restart.go) and each
// step began, GE's adoptions per process and GA's evidence.
func (d *Driver) judged() linjudge.Run {
	return linjudge.Run{Shared: func() []history.Violation { return d.lin.Finish(d.View(), nil) },
		Tape: d.h, Starts: d.processStarts, Ghosts: d.processGhosts(), StepStart: d.stepStart, Step: d.Step,
		ZeroDeletionOffered: d.zeroDeletionOffered, PorcupineTimeout: PorcupineTimeout}
}

// processGhosts are the GE adoptions (explain.Evidence.GhostFrom) of each
// kubelet process, by its index in processStarts: the current one's, or
// those kept when it ended (pastGhosts); nil when none.
func (d *Driver) processGhosts() []map[types.UID]int {
	out := make([]map[types.UID]int, len(d.processStarts))
	for i := range out {
		out[i] = d.pastGhosts[i]
	}
	if last := len(out) - 1; len(d.ev.GhostFrom) > 0 {
		out[last] = d.ev.GhostFrom
	}
	return out
}

// stepOf is the driver step an event seq belongs to (0 before the first).
func (d *Driver) stepOf(seq int64) int { return linjudge.StepOf(d.stepStart, seq) }
