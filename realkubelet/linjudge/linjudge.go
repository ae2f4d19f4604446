// Package linjudge is the linearizability verdict of a run on the real
// kubelet: the shared oracle's (oracle/linearize, fed every event as it
// happened, one oracle per kubelet process: tape.PerProcess), and, when
// that rejects the history, the judging again that decides whether the
// run is explained: against the model with exactly the deviations the
// direct findings named, with GE's cut, and once more with GA's rule.
//
// Why a package of its own: the verdict reads only the finished recording
// (the tape, where each kubelet process and each driver step began) and
// two facts the driver kept while stepping (GE's adoptions per process,
// and whether a kill override came with DeletionGracePeriodSeconds=0). It
// never reads the pod workers, the config source or the driver's per-UID
// evidence, and Run names exactly that slice, so what a verdict can
// depend on is visible where the driver builds it (the driver's
// linearize.go).
package linjudge

import (
	"fmt"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/deviation"
	"github.com/podsim/podsim/oracle/linearize"
	"github.com/podsim/podsim/realkubelet/finding"
	"github.com/podsim/podsim/realkubelet/tape"
)

// Run is what the verdict reads of a finished run.
type Run struct {
	// Shared is the shared oracle's verdict on the whole run (its Finish:
	// linearize.New fed every event, the simulated world's recorder and
	// verdict, the specification's model).
	Shared func() []history.Violation
	// Tape is the run's recording.
	Tape *tape.Tape
	// Starts are the seqs at which each kubelet process's history begins,
	// oldest first.
	Starts []int64
	// Ghosts are, per kubelet process (by its index in Starts), the steps
	// at which a worker goroutine of an earlier incarnation adopted a
	// UID's record (explain.Evidence.GhostFrom); nil for a process with
	// none.
	Ghosts []map[types.UID]int
	// StepStart[s] is the first event seq of driver step s (index 0
	// unused); Step is the last step.
	StepStart []int64
	Step      int
	// ZeroDeletionOffered: some update of the run offered a kill override
	// with DeletionGracePeriodSeconds=0 (GA's evidence, Judge).
	ZeroDeletionOffered bool
	// PorcupineTimeout bounds porcupine's search for one history (it runs
	// only when the witness replay fails); a timeout is a finding.
	PorcupineTimeout time.Duration
}

// Verdict is the linearizability check of a run.
type Verdict struct {
	Ops      int
	Findings []finding.Finding
	// Dev are the model deviations the history was judged with (0: the
	// specification alone).
	Dev deviation.Set
}

// Check is the shared oracle's verdict (Run.Shared). If it rejects the
// history and the direct findings name model deviations dev
// (finding.Apply), the history is judged again against the model with
// exactly those switched on; only that verdict counts. Its violations are
// never explained: a history the model with the deviations the run showed
// does not accept has a deviation nobody named.
//
// One limit, GE: the model has a single worker per record, so once a
// goroutine of an earlier incarnation began a callback of a UID's record
// (explain.Evidence.GhostFrom), the model cannot follow that UID. Then two
// histories are judged, and both must be accepted: the whole history
// before the first such step, and the whole history without the adopted
// UIDs (their operations, and their entries in every SyncKnownPods). The
// adopted UIDs' operations after that step are judged by the direct
// checks only.
func Check(r Run, dev deviation.Set) Verdict {
	viols := r.Shared()
	out := Verdict{}
	for _, h := range r.Tape.Processes(r.Starts) {
		out.Ops += len(h.Ops)
	}
	if len(viols) == 0 {
		return out
	}
	if dev == 0 && !slices.ContainsFunc(r.Ghosts, func(g map[types.UID]int) bool { return g != nil }) {
		for _, viol := range viols {
			out.Findings = append(out.Findings, finding.Finding{Violation: viol, Step: StepOf(r.StepStart, viol.Seq)})
		}
		return out
	}
	out.Dev = dev
	for _, h := range r.histories() {
		v := linearize.CheckHistory(h, linearize.Options{PorcupineTimeout: r.PorcupineTimeout, Deviations: dev})
		for _, viol := range v.Violations(h) {
			viol.Message += fmt.Sprintf(" [judged with the model deviations the run showed: %s]", dev)
			out.Findings = append(out.Findings, finding.Finding{Violation: viol, Step: StepOf(r.StepStart, viol.Seq)})
		}
	}
	return out
}

// histories are the histories Check judges again: each process's whole
// history, or for a process with GE adoptions, its history before the
// first adoption's step and its whole history without the adopted UIDs.
func (r Run) histories() []history.History {
	var out []history.History
	for i, h := range r.Tape.Processes(r.Starts) {
		ghosts := r.Ghosts[i]
		if ghosts == nil {
			out = append(out, h)
			continue
		}
		from, to := r.Starts[i], r.Tape.Seq+1
		if i+1 < len(r.Starts) {
			to = r.Starts[i+1] - 1 // before the Restarted event, as Processes
		}
		first := r.Step + 1
		adopted := map[string]bool{}
		for uid, step := range ghosts {
			first, adopted[string(uid)] = min(first, step), true
		}
		out = append(out, r.Tape.Range(from, r.StepStart[first]), r.Tape.Without(from, to, adopted))
	}
	return out
}

// StepOf is the driver step an event seq belongs to (0 before the first),
// stepStart[s] being the first seq of step s.
func StepOf(stepStart []int64, seq int64) int {
	i, found := slices.BinarySearch(stepStart, seq)
	if found {
		return i
	}
	return max(i-1, 0)
}

// Judge is Check under the deviations the direct checks showed, and once
// more with GA when that alone leaves the history unlinearizable and the
// run offered a kill override together with DeletionGracePeriodSeconds=0
// (Run.ZeroDeletionOffered): the one input on which upstream's grace
// formula parts from the spec's. There a force delete's 0 reads as unset,
// so the override raises the grace, and the raise cancels the sync in
// flight; the spec's formula keeps the lower grace and no cancel is due.
// If GA's rule accepts the history, it is GA, reported as one finding of
// that class. The S11 check names GA only when a later call carries the
// raised grace, which a run may end before (swarm seed 21,901: delete a,
// kill-now a grace=10, then the cancel). A history GA does not mend keeps
// its unexplained findings, and so does every history when GA is not in
// the catalogue.
func Judge(r Run, dev deviation.Set, catalogue []string) Verdict {
	lin := Check(r, dev)
	if len(lin.Findings) == 0 || dev.Has(deviation.GA) || !r.ZeroDeletionOffered || !slices.Contains(catalogue, "GA") {
		return lin
	}
	ga := Check(r, dev|deviation.GA)
	if len(ga.Findings) > 0 {
		return lin
	}
	first := lin.Findings[0]
	ga.Findings = []finding.Finding{{Class: "GA", Step: first.Step, Violation: history.Violation{
		Oracle: first.Oracle, Invariant: first.Invariant, Seq: first.Seq,
		Message: first.Message + " [linearizable with upstream's grace formula (GA): a kill override came with DeletionGracePeriodSeconds=0]"}}}
	return ga
}
