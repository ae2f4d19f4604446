package coverage

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/oracle"
)

// TestAtRestReadsTheCommittedState: on a target that records no lock
// releases, the state field stays "?" until AtRest reads the answers;
// AtRest then visits every pod the tracker knows (in order of first
// sight) with the state they show, records a transition to it, and adds
// no pod the events never named; an answer that did not change records
// nothing new.
func TestAtRestReadsTheCommittedState(t *testing.T) {
	tr := New()
	for _, ev := range []history.Event{call("client/0", update("a", ops.Create, -1, false)), begin("a", ops.SyncPod),
		call("client/1", update("b", ops.Create, -1, false))} {
		tr.Observe(nil, &ev)
	}
	before := tr.Coverage()
	for _, tu := range before.Tuples {
		if tu[0] != '?' {
			t.Fatalf("a state before any answer: %v", before.Tuples)
		}
	}
	probe := history.NewProbe(true, map[types.UID]oracle.Answers{"a": {Known: true}, "b": {Known: true, TerminationRequested: true},
		"zz": {Known: true}}, nil)
	tr.AtRest(probe)
	after := tr.Coverage()
	want := []string{"S|sync|-|-|-|run|create", "TR|-|-|-|-|run|create"}
	for _, w := range want {
		if !slices.Contains(after.Tuples, w) {
			t.Fatalf("AtRest: no %q in %v", w, after.Tuples)
		}
	}
	if len(after.Tuples) != len(before.Tuples)+2 || len(after.Transitions) != len(before.Transitions)+2 {
		t.Fatalf("AtRest added %d tuples and %d transitions, want 2 and 2 (no pod zz): %v",
			len(after.Tuples)-len(before.Tuples), len(after.Transitions)-len(before.Transitions), after.Tuples)
	}
	tr.AtRest(probe)
	if again := tr.Coverage(); len(again.Tuples) != len(after.Tuples) || len(again.Transitions) != len(after.Transitions) {
		t.Fatalf("the same answers again changed the coverage: %v", again.Tuples)
	}
	tr.AtRest(nil) // no probe: nothing read
	if again := tr.Coverage(); len(again.Tuples) != len(after.Tuples) {
		t.Fatalf("AtRest(nil) changed the coverage: %v", again.Tuples)
	}
}
