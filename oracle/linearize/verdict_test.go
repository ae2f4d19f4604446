package linearize

import (
	"strings"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
)

func TestVerdictViolations(t *testing.T) {
	h := history.History{Ops: []porcupine.Operation{{Input: ops.CompletionFired{UID: "a", ID: 1}, Call: 2, Return: 3}},
		Effects: []history.Effect{{Op: 0, Seq: 1, At: time.Second}}}
	notDue := `op 0 "kill a completion#1 fired": a: completion #1 fired but is not due (S14)`
	for _, tc := range []struct {
		name      string
		v         Verdict
		invariant string // "" = no violation
		message   string
	}{
		{"witness ok", Verdict{Result: porcupine.Ok, Witness: true, FailedAt: -1}, "", ""},
		{"witness fails, porcupine finds an order", Verdict{Result: porcupine.Ok, Porcupine: porcupine.Ok, Reason: notDue}, "", ""},
		{"illegal, invariant cited", Verdict{Result: porcupine.Illegal, Porcupine: porcupine.Illegal, Reason: notDue},
			"S14", `in effect order "kill a completion#1 fired" (event 1 at 1s) fails: a: completion #1 fired`},
		{"illegal, no invariant cited", Verdict{Result: porcupine.Illegal, Porcupine: porcupine.Illegal, Reason: "op 0 \"x\": wrong"},
			"model", "fails: wrong"},
		{"timeout", Verdict{Result: porcupine.Unknown, Porcupine: porcupine.Unknown, Reason: notDue, Timeout: 10 * time.Second},
			"unknown", "unknown (porcupine timed out after 10s on 1 operations)"},
		{"replay and porcupine disagree", Verdict{Result: porcupine.Ok, Witness: true, FailedAt: -1, Porcupine: porcupine.Illegal},
			"internal", "Replay and PorcupineModel disagree"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.v.Violations(h)
			switch {
			case tc.invariant == "" && len(got) != 0:
				t.Errorf("got %v, want no violation", got)
			case tc.invariant == "":
			case len(got) != 1 || got[0].Invariant != tc.invariant || !strings.Contains(got[0].Message, tc.message):
				t.Errorf("got %v, want one %s violation saying %q", got, tc.invariant, tc.message)
			}
		})
	}
}
