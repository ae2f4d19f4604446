package linearize

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/anishathalye/porcupine"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/check"
	"github.com/podsim/podsim/model/deviation"
	"github.com/podsim/podsim/model/ops"
)

// Artifact file names the linearizability oracle writes into
// Options.ArtifactDir when it finds a violation.
const (
	ArtifactVerdict = "linearizability.txt"         // one line: the violation and the reproduce command
	ArtifactHTML    = "linearizability.html"        // porcupine's visualisation
	ArtifactWitness = "linearizability-witness.txt" // the effect order, one operation a line
	ArtifactTrace   = "trace.txt"                   // the scheduler's canonical trace
)

// writeArtifacts writes what a human needs to see a linearizability
// failure. Everything is a function of the run, so a replay writes the
// same bytes: no timestamps, sorted partial linearizations. (One
// exception: after a timeout, how far porcupine got depends on the
// machine, and so does the HTML.)
func writeArtifacts(opts Options, h history.History, v Verdict, viol history.Violation) error {
	if err := os.MkdirAll(opts.ArtifactDir, 0o755); err != nil {
		return err
	}
	reproduce := opts.Reproduce
	if reproduce == "" {
		reproduce = "(unknown: Options.Reproduce not set)"
	}
	files := []struct {
		name string
		data func() ([]byte, error)
	}{
		{ArtifactVerdict, func() ([]byte, error) {
			line := strings.ReplaceAll(viol.String(), "\n", " ")
			return []byte(fmt.Sprintf("FAIL %s; reproduce: %s\n", line, reproduce)), nil
		}},
		{ArtifactHTML, func() ([]byte, error) { return visualize(h, v, opts.Deviations) }},
		{ArtifactWitness, func() ([]byte, error) { return []byte(WitnessText(h, v)), nil }},
		{ArtifactTrace, func() ([]byte, error) { return []byte(traceOf(opts)), nil }},
	}
	for _, f := range files {
		data, err := f.data()
		if err != nil {
			return fmt.Errorf("%s: %w", f.name, err)
		}
		if err := os.WriteFile(filepath.Join(opts.ArtifactDir, f.name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// visualize renders porcupine's HTML for a verdict that ran porcupine,
// annotated with the sync callbacks (one bar per call, from entry to
// return) and the virtual clock's jumps.
func visualize(h history.History, v Verdict, dev deviation.Set) ([]byte, error) {
	if v.Porcupine == "" {
		return nil, fmt.Errorf("porcupine did not run")
	}
	info := v.Info
	// Porcupine collects partial linearizations through a map: sort them so
	// that the file is the same on every replay.
	for _, part := range info.PartialLinearizations() {
		slices.SortFunc(part, slices.Compare)
	}
	info.AddAnnotations(annotations(h))
	var buf bytes.Buffer
	if err := porcupine.Visualize(check.PorcupineModelWith(dev), info, &buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// annotations marks each sync callback as a bar on a row of its own per
// worker, and every jump of the virtual clock on the "clock" row.
func annotations(h history.History) []porcupine.Annotation {
	var out []porcupine.Annotation
	begun := map[string]porcupine.Operation{}
	end := int64(0)
	for _, op := range h.Ops {
		end = max(end, op.Return)
		switch in := op.Input.(type) {
		case ops.SyncBegin:
			begun[in.UID] = op
		case ops.SyncEnd:
			b, ok := begun[in.UID]
			if !ok {
				continue
			}
			delete(begun, in.UID)
			out = append(out, callbackBar(b, op.Return, in.Outcome.String()))
		}
	}
	uids := make([]string, 0, len(begun))
	for uid := range begun {
		uids = append(uids, uid)
	}
	slices.Sort(uids)
	for _, uid := range uids {
		out = append(out, callbackBar(begun[uid], end, "still running"))
	}
	for _, c := range h.Clock {
		out = append(out, porcupine.Annotation{Tag: "clock", Start: 2 * c.Seq, Description: c.At.String(),
			Details:         fmt.Sprintf("virtual time jumps to %v before event %d", c.At, c.Seq),
			BackgroundColor: "#e8e8e8"})
	}
	return out
}

// callbackBar is one sync callback from its SyncBegin to end.
func callbackBar(begin porcupine.Operation, end int64, outcome string) porcupine.Annotation {
	b := begin.Input.(ops.SyncBegin)
	colors := map[ops.SyncFn]string{ops.SyncPod: "#d4f0d4", ops.SyncTerminatingPod: "#f7e1c4",
		ops.SyncTerminatingRuntimePod: "#f7d4d4", ops.SyncTerminatedPod: "#dcdcf7"}
	return porcupine.Annotation{Tag: "sync worker/" + b.UID, Start: begin.Call, End: end,
		Description: b.Fn.String() + " → " + outcome,
		Details:     ops.Describe(b, nil) + " → " + outcome, BackgroundColor: colors[b.Fn]}
}

// WitnessText lists the effect order, one operation a line, marking where
// the replay failed: the order the simulation saw, next to porcupine's.
func WitnessText(h history.History, v Verdict) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# effect order of %d operations (%d observed)", len(h.Effects), len(h.Ops))
	if h.Cut != 0 {
		fmt.Fprintf(&b, "; cut at event %d, %d dropped", h.Cut, h.Dropped)
	}
	b.WriteString("\n")
	for i, e := range h.Effects {
		row := "witness"
		if e.Op >= 0 {
			row = h.Rows[h.Ops[e.Op].ClientId]
		}
		op := h.Op(e)
		mark := ""
		if !v.Witness && i == v.FailedAt {
			mark = "  <<< " + v.Reason
		}
		fmt.Fprintf(&b, "%4d event %-5d %-10v %-14s %s%s\n", i, e.Seq, e.At, row, ops.Describe(op.Input, op.Output), mark)
	}
	return b.String()
}

// traceOf is the target's trace, or a line saying it offers none.
func traceOf(opts Options) string {
	if opts.Trace == nil {
		return "(no trace: the target offers none)\n"
	}
	return opts.Trace()
}
