// Package linearize is the linearizability oracle: it records the run's
// history (history.Recorder) and, when the run is over, replays it through
// the model in effect order (the witness), falling back to porcupine's
// search when the replay fails.
package linearize

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/check"
	"github.com/podsim/podsim/model/deviation"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/oracle"
)

// Options tune the linearizability check.
type Options struct {
	// ForcePorcupine runs porcupine's search on every history instead of
	// only when the witness replay fails.
	ForcePorcupine bool
	// PorcupineTimeout bounds porcupine's search; a timeout is reported as
	// "unknown", never as a pass. 0 means DefaultPorcupineTimeout; a
	// negative value means no bound.
	PorcupineTimeout time.Duration
	// ArtifactDir, if set, is where a violation's artifacts go (porcupine's
	// HTML, the canonical trace, the witness order and a one-line verdict).
	// Files hold no timestamps, so a replay writes the same bytes. Empty:
	// nothing is written.
	ArtifactDir string
	// Reproduce is the command that replays this run, for the verdict line;
	// the oracle cannot know the seed.
	Reproduce string
	// Trace returns the target's canonical trace, for the artifacts.
	Trace func() string
	// Deviations are the model deviations switched on (deviation.Set):
	// the history is judged against the specification with exactly those
	// rules replaced by upstream's. Zero, the specification, for every
	// simulated run; the real-kubelet driver's explanations set it.
	Deviations deviation.Set
	// Search is porcupine's search over a history; nil means check.Check
	// (with Deviations). (Tests slow it down to provoke a timeout.)
	Search func(history []porcupine.Operation, timeout time.Duration) (porcupine.CheckResult, porcupine.LinearizationInfo)
}

// DefaultPorcupineTimeout bounds porcupine's search when Options does
// not say: generous for the histories of one seed (tens to hundreds of
// operations, milliseconds of search), short enough that a pathological
// history cannot stall a sweep.
const DefaultPorcupineTimeout = 10 * time.Second

// checkFunc is porcupine's search over a history: check.Check, or a
// wrapper in tests (a slow model, to provoke a timeout).
type checkFunc func(history []porcupine.Operation, timeout time.Duration) (porcupine.CheckResult, porcupine.LinearizationInfo)

// linearizability is the oracle of docs/design.md "Oracles" layer 3: it records
// the run (Recorder) and judges the history when the run is over, never
// during it, so checking cannot perturb the schedule.
type linearizability struct {
	rec   *history.Recorder
	opts  Options
	check checkFunc // search's, nil until then
	// history and verdict are Finish's when it made the History (not
	// passed), kept for tests and reports.
	history history.History
	verdict Verdict
	taken   bool // the recorder's history is taken and its buffer recycled
	// passed: Finish found the witness legal without the History
	// (witnessPasses), which it then never made.
	passed bool
}

// New returns the linearizability oracle: record the history,
// replay it through the model in effect order (the witness), fall back to
// porcupine.
func New(opts Options) oracle.Oracle { return newLinearizability(opts) }

func newLinearizability(opts Options) *linearizability {
	return &linearizability{rec: history.NewRecorder(), opts: opts}
}

// search is porcupine's search as l's options ask for it (searchOf), made
// when Finish first needs it: a passing run never searches, and the
// search function is an allocation.
func (l *linearizability) search() checkFunc {
	if l.check == nil {
		l.check = searchOf(l.opts)
	}
	return l.check
}

// searchOf is porcupine's search as opts ask for it.
func searchOf(opts Options) checkFunc {
	if opts.Search != nil {
		return opts.Search
	}
	return searchWith(opts.Deviations)
}

// Reuse returns prev, an oracle of New or Reuse whose run is over, as
// New(opts) would make it: its recorder emptied (history.Recorder.Reset)
// and kept, its history and verdict dropped (a lane's consecutive seeds
// reuse one, run.Lane). Any other prev: New(opts).
func Reuse(prev oracle.Oracle, opts Options) oracle.Oracle {
	l, ok := prev.(*linearizability)
	if !ok {
		return New(opts)
	}
	l.rec.Reset()
	*l = linearizability{rec: l.rec, opts: opts}
	return l
}

// Observe implements oracle.Oracle: every event goes to the recorder.
func (l *linearizability) Observe(_ oracle.View, ev *history.Event) { l.rec.Observe(ev) }

// Finish checks the history. If the run failed (runErr != nil) the history
// stops wherever the run did; the oracle still checks what was recorded,
// cut before the first call that never returned (Recorder.History), so a
// real violation that led to the failure is still reported and the cut
// itself cannot raise a false alarm.
func (l *linearizability) Finish(_ oracle.View, runErr error) []history.Violation {
	if l.passed {
		return nil
	}
	h := l.history
	if !l.taken && l.witnessPasses() {
		l.rec.Recycle()
		l.taken, l.passed = true, true
		return nil
	}
	if !l.taken { // Finish may be called again (a driver re-judging a run): same history
		h = l.rec.History()
		l.rec.Recycle() // the next run's recorder reuses its operation buffer
		l.taken = true
	}
	v := checkHistory(h, l.rec.Witness(h), l.opts, l.search())
	l.history, l.verdict = h, v
	out := v.Violations(h)
	if len(out) > 0 && l.opts.ArtifactDir != "" {
		if err := writeArtifacts(l.opts, h, v, out[0]); err != nil {
			out[0].Message += fmt.Sprintf(" (artifacts not written: %v)", err)
		}
	}
	return out
}

// witnessPasses reports whether the recorder's witness (its effect order,
// with the worker-step markers) replays legally, which makes the verdict Ok
// without the History: checkHistory replays that same witness first (or,
// when it holds no marker, that same order as the unmarked one) and
// searches only when it fails or ForcePorcupine asks. The History is the
// bulk of the work at Finish and is read only for a violation, so a
// passing run never makes it. false leaves Finish to decide as before.
func (l *linearizability) witnessPasses() bool {
	if l.opts.ForcePorcupine {
		return false
	}
	w, ok := l.rec.EffectWitness()
	if !ok {
		return false
	}
	ok, _, _ = check.ReplayWith(w, l.opts.Deviations)
	return ok
}

// Verdict is the outcome of checking one history.
type Verdict struct {
	// Result is the verdict: Ok if the witness replay succeeded or
	// porcupine found a linearization, else porcupine's Illegal or Unknown.
	Result porcupine.CheckResult
	// Witness reports whether the effect order replayed legally; if not,
	// FailedAt indexes History.Effects and Reason is the model's.
	Witness  bool
	FailedAt int
	Reason   string
	// Mode is the replay that decided Witness: "markers" (witness mode,
	// hidden worker steps only at the recorded WorkerStep markers) or
	// "closure" (markers left out, Replay explores the hidden steps).
	Mode string
	// Porcupine is porcupine's own result, "" if it did not run; Info is
	// its linearization info (for the visualisation) and Timeout its bound.
	Porcupine porcupine.CheckResult
	Info      porcupine.LinearizationInfo
	Timeout   time.Duration
}

// CheckHistory judges a recorded history: the witness replay first, and
// porcupine only when it fails (or always, with opts.ForcePorcupine).
func CheckHistory(h history.History, opts Options) Verdict {
	return checkHistory(h, nil, opts, searchWith(opts.Deviations))
}

// searchWith is porcupine's search against the model with dev.
func searchWith(dev deviation.Set) checkFunc {
	return func(history []porcupine.Operation, timeout time.Duration) (porcupine.CheckResult, porcupine.LinearizationInfo) {
		return check.CheckWith(history, timeout, dev)
	}
}

// checkHistory is CheckHistory with search; witness is h.Witness() (nil:
// checkHistory builds it).
func checkHistory(h history.History, witness []ops.Op, opts Options, search checkFunc) Verdict {
	v := replayWitness(h, witness, opts.Deviations)
	ok := v.Witness
	if ok && !opts.ForcePorcupine {
		return v
	}
	v.Timeout = opts.PorcupineTimeout
	if v.Timeout == 0 {
		v.Timeout = DefaultPorcupineTimeout
	}
	v.Porcupine, v.Info = searchHistory(h, max(v.Timeout, 0), opts.Deviations, search)
	if !ok {
		// The witness proves nothing when it fails: porcupine decides.
		v.Result = v.Porcupine
	}
	return v
}

// searchHistory is porcupine's verdict on h. It searches the history with
// its worker-step markers first (check.PorcupineMarkedModel: hidden steps
// only at the markers, so no closure and much smaller states), whose Ok is
// final; otherwise — Illegal, which a misplaced marker can cause, Unknown,
// or no markers — check searches the history without them and decides.
func searchHistory(h history.History, timeout time.Duration, dev deviation.Set, search checkFunc) (porcupine.CheckResult, porcupine.LinearizationInfo) {
	if marked := h.MarkedOps(); len(marked) > len(h.Ops) {
		if res, info := check.CheckMarkedWith(marked, timeout, dev); res == porcupine.Ok {
			return res, info
		}
	}
	return search(h.Ops, timeout)
}

// replayWitness is the witness: the effect order through check.Replay,
// with the worker-step markers first (witness mode: no search at all), and
// if that fails without them (closure mode: Replay explores when the
// workers stepped). The second try exists because a marker can be
// misplaced: the worker goroutine of a purged record may run one last,
// empty critical section under the same name, worker/<uid>, as the worker
// of the UID's next record, and the events cannot tell the two apart. A
// failure is reported from the closure mode, which does not depend on the
// markers. witness is h.Witness() (nil: built here if needed).
func replayWitness(h history.History, witness []ops.Op, dev deviation.Set) Verdict {
	v := Verdict{Result: porcupine.Ok, Mode: "markers"}
	// Any worker-step marker (an effect with no operation) makes the
	// unmarked order shorter than the effects: replay with the markers
	// first, and build the unmarked order only if that fails.
	if slices.ContainsFunc(h.Effects, func(e history.Effect) bool { return e.Op < 0 }) {
		if witness == nil {
			witness = h.Witness()
		}
		if v.Witness, v.FailedAt, v.Reason = check.ReplayWith(witness, dev); v.Witness {
			return v
		}
	}
	seq, index := h.Unmarked()
	v.Mode = "closure"
	var at int
	if v.Witness, at, v.Reason = check.ReplayWith(seq, dev); !v.Witness {
		v.FailedAt = index[at]
	} else {
		v.FailedAt, v.Reason = -1, ""
	}
	return v
}

// Violations turns a verdict into the oracle's findings: none when the
// history is linearizable; an Illegal history names the invariant the
// model's reason cites (e.g. S14) and the operation the effect order fails
// at; Unknown is a violation too, never a pass; and a witness accepted by
// Replay but rejected by porcupine means the two readings of the model
// disagree (Invariant "internal").
func (v Verdict) Violations(h history.History) []history.Violation {
	switch {
	case v.Witness && v.Porcupine == porcupine.Illegal:
		return []history.Violation{{Oracle: "linearizability", Invariant: "internal", Message: fmt.Sprintf(
			"model.Replay accepts the effect order of %d operations but porcupine finds the history Illegal: "+
				"Replay and PorcupineModel disagree", len(h.Ops))}}
	case v.Result == porcupine.Ok:
		return nil
	}
	viol := history.Violation{Oracle: "linearizability", Invariant: invariantOf(v.Reason)}
	where, reason := "", v.Reason
	if v.FailedAt >= 0 && v.FailedAt < len(h.Effects) {
		e := h.Effects[v.FailedAt]
		viol.At, viol.Seq = e.At, e.Seq
		op := h.Op(e)
		where = fmt.Sprintf("%q (event %d at %v)", ops.Describe(op.Input, op.Output), e.Seq, e.At)
		reason = stripOpPrefix(reason)
	}
	cut := ""
	if h.Cut != 0 {
		cut = fmt.Sprintf(", history cut at event %d (a call never returned)", h.Cut)
	}
	switch v.Result {
	case porcupine.Illegal:
		viol.Message = fmt.Sprintf("not linearizable (porcupine: Illegal, %d operations%s); "+
			"in effect order %s fails: %s", len(h.Ops), cut, where, reason)
	default:
		viol.Invariant = "unknown"
		viol.Message = fmt.Sprintf("unknown (porcupine timed out after %v on %d operations%s); "+
			"in effect order %s fails: %s", v.Timeout, len(h.Ops), cut, where, reason)
	}
	return []history.Violation{viol}
}

// invariantTag finds an invariant the model cites, as in "… (S14)".
var invariantTag = regexp.MustCompile(`\(([SLK][0-9]+)\b`)

// invariantOf is the first invariant the model's reason cites, or "model"
// when it cites none (e.g. a query answer or SyncKnownPods result the
// model would not give).
func invariantOf(reason string) string {
	if m := invariantTag.FindStringSubmatch(reason); m != nil {
		return m[1]
	}
	return "model"
}

// stripOpPrefix drops Replay's `op N "description": ` prefix, which the
// message already says in its own words.
func stripOpPrefix(reason string) string {
	if !strings.HasPrefix(reason, "op ") {
		return reason
	}
	if _, rest, ok := strings.Cut(reason, `": `); ok {
		return rest
	}
	return reason
}
