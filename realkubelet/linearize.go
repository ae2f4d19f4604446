package realkubelet

import (
	"fmt"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/deviation"
	"github.com/podsim/podsim/oracle/linearize"
	"github.com/podsim/podsim/realkubelet/finding"
)

// PorcupineTimeout bounds porcupine's search for one history (it runs only
// when the witness replay fails); a timeout is a finding, never a pass.
var PorcupineTimeout = 5 * time.Second

// linResult is the linearizability check of a run.
type linResult struct {
	ops      int
	findings []finding.Finding
	// dev are the model deviations the history was judged with (0: the
	// specification alone).
	dev deviation.Set
}

// checkHistory is the verdict of the shared linearizability oracle
// (linearize.New, fed every event as it happened: the same recorder and
// verdict as the simulated world, the specification's model). If it
// rejects the history and the direct findings name model deviations dev
// (applyCatalogue), the history is judged again against the model with
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
func (d *Driver) checkHistory(dev deviation.Set) linResult {
	viols := d.lin.Finish(d.View(), nil)
	out := linResult{}
	for _, h := range d.processHistories() {
		out.ops += len(h.Ops)
	}
	if len(viols) == 0 {
		return out
	}
	if dev == 0 && len(d.pastGhosts) == 0 && len(d.ev.GhostFrom) == 0 {
		for _, viol := range viols {
			out.findings = append(out.findings, finding.Finding{Violation: viol, Step: d.stepOf(viol.Seq)})
		}
		return out
	}
	out.dev = dev
	var histories []history.History
	for i, h := range d.processHistories() {
		ghosts := d.ghostsOf(i)
		if ghosts == nil {
			histories = append(histories, h)
			continue
		}
		from, to := d.processStarts[i], d.h.Seq+1
		if i+1 < len(d.processStarts) {
			to = d.processStarts[i+1] - 1 // before the Restarted event, as Processes
		}
		first := d.Step + 1
		adopted := map[string]bool{}
		for uid, step := range ghosts {
			first, adopted[string(uid)] = min(first, step), true
		}
		histories = append(histories, d.h.Range(from, d.stepStart[first]), d.h.Without(from, to, adopted))
	}
	for _, h := range histories {
		v := linearize.CheckHistory(h, linearize.Options{PorcupineTimeout: PorcupineTimeout, Deviations: dev})
		for _, viol := range v.Violations(h) {
			viol.Message += fmt.Sprintf(" [judged with the model deviations the run showed: %s]", dev)
			out.findings = append(out.findings, finding.Finding{Violation: viol, Step: d.stepOf(viol.Seq)})
		}
	}
	return out
}

// ghostsOf are the GE adoptions (explain.Evidence.GhostFrom) of kubelet
// process i (its index in processStarts): the current one's, or those kept
// when it ended (pastGhosts); nil when none.
func (d *Driver) ghostsOf(i int) map[types.UID]int {
	if i == len(d.processStarts)-1 && len(d.ev.GhostFrom) > 0 {
		return d.ev.GhostFrom
	}
	return d.pastGhosts[i]
}

// processHistories are the histories of the run's kubelet processes, one
// per process (restart.go), oldest first.
func (d *Driver) processHistories() []history.History { return d.h.Processes(d.processStarts) }

// stepOf is the driver step an event seq belongs to (0 before the first).
func (d *Driver) stepOf(seq int64) int {
	i, found := slices.BinarySearch(d.stepStart, seq)
	if found {
		return i
	}
	return max(i-1, 0)
}

// judgeHistory is checkHistory under the deviations the direct checks
// showed, and once more with GA when that alone leaves the history
// unlinearizable and the run offered a kill override together with
// DeletionGracePeriodSeconds=0 (zeroDeletionOffered): the one input on
// which upstream's grace formula parts from the spec's. There a force
// delete's 0 reads as unset, so the override raises the grace, and the
// raise cancels the sync in flight; the spec's formula keeps the lower
// grace and no cancel is due. If GA's rule accepts the history, it is GA,
// reported as one finding of that class. The S11 check names GA only
// when a later call carries the raised grace, which a run may end before
// (swarm seed 21,901: delete a, kill-now a grace=10, then the cancel). A
// history GA does not mend keeps its unexplained findings, and so does
// every history when GA is not in the catalogue.
func (d *Driver) judgeHistory(dev deviation.Set, catalogue []string) linResult {
	lin := d.checkHistory(dev)
	if len(lin.findings) == 0 || dev.Has(deviation.GA) || !d.zeroDeletionOffered || !slices.Contains(catalogue, "GA") {
		return lin
	}
	ga := d.checkHistory(dev | deviation.GA)
	if len(ga.findings) > 0 {
		return lin
	}
	first := lin.findings[0]
	ga.findings = []finding.Finding{{Class: "GA", Step: first.Step, Violation: history.Violation{
		Oracle: first.Oracle, Invariant: first.Invariant, Seq: first.Seq,
		Message: first.Message + " [linearizable with upstream's grace formula (GA): a kill override came with DeletionGracePeriodSeconds=0]"}}}
	return ga
}
