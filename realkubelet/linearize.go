package realkubelet

import (
	"fmt"
	"slices"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/oracle/linearize"
)

// PorcupineTimeout bounds porcupine's search for one history (it runs only
// when the witness replay fails); a timeout is a finding, never a pass.
var PorcupineTimeout = 5 * time.Second

// linResult is the linearizability check of a run.
type linResult struct {
	ops      int
	findings []Finding
}

// checkHistory is the verdict of the shared linearizability oracle
// (linearize.New, fed every event as it happened: the same recorder and
// verdict as the simulated world, witness replay in effect order,
// porcupine when it fails), classified. A violation is attributed to a known
// deviation G when a direct check found G at some step s, the history
// before step s is linearizable, and the model's failure is at or after
// s: the model only objects once the real code has done what G describes.
// Otherwise it stays unexplained.
func (d *Driver) checkHistory() linResult {
	viols := d.lin.Finish(d.View(), nil)
	out := linResult{ops: len(d.historyBefore(d.h.seq + 1).Ops)}
	if len(viols) == 0 {
		return out
	}
	gap, gapStep, cut := d.firstGap()
	explained := gap != "" && d.prefixLinearizable(cut)
	for _, viol := range viols {
		f := Finding{Violation: viol, Step: d.stepOf(viol.Seq)}
		if explained && (viol.Seq == 0 || viol.Seq >= cut) {
			f.Class = gap
			f.Message += fmt.Sprintf(" [the history before step %d, where %s was found, is linearizable]", gapStep, gap)
		}
		out.findings = append(out.findings, f)
	}
	return out
}

// firstGap is the class of the earliest direct finding of a known
// deviation and the first event seq of its step.
func (d *Driver) firstGap() (class string, step int, cut int64) {
	best := -1
	for i, f := range d.checks.findings {
		if f.Class != "" && (best < 0 || f.Step < d.checks.findings[best].Step) {
			best = i
		}
	}
	if best < 0 {
		return "", 0, 0
	}
	f := d.checks.findings[best]
	return f.Class, f.Step, d.stepStart[f.Step]
}

// prefixLinearizable checks the history of the events before seq cut.
func (d *Driver) prefixLinearizable(cut int64) bool {
	v := linearize.CheckHistory(d.historyBefore(cut), linearize.Options{PorcupineTimeout: PorcupineTimeout})
	return v.Result == porcupine.Ok
}

// historyBefore records the events before seq cut afresh.
func (d *Driver) historyBefore(cut int64) history.History {
	rec := history.NewRecorder()
	for _, ev := range d.h.events {
		if ev.Seq >= cut {
			break
		}
		rec.Observe(ev)
	}
	return rec.History()
}

// stepOf is the driver step an event seq belongs to (0 before the first).
func (d *Driver) stepOf(seq int64) int {
	i, found := slices.BinarySearch(d.stepStart, seq)
	if found {
		return i
	}
	return max(i-1, 0)
}
