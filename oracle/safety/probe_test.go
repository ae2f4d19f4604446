package safety

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
)

// TestSafetyJudgesTheRecordedAnswers: through Observe, the oracle judges the
// answers the LockReleasing event carries (history.Probe), and says so when
// a release carries none.
func TestSafetyJudgesTheRecordedAnswers(t *testing.T) {
	invariants := func(probe *history.Probe) []string {
		o := newSafetyOracle()
		evs := []history.Event{
			{Seq: 1, Kind: history.ClientCall, Goroutine: "client/0", ID: 1, Input: ops.Query{Kind: ops.IsPodKnownTerminated, UID: "a"}},
			{Seq: 2, Kind: history.LockAcquired, Goroutine: "client/0"},
			{Seq: 3, Kind: history.LockReleasing, Goroutine: "client/0", Probe: probe},
		}
		for _, ev := range evs {
			o.Observe(nil, &ev)
		}
		var out []string
		for _, v := range o.Finish(nil, nil) {
			out = append(out, v.Invariant)
		}
		return out
	}
	unknown := history.UnknownAnswers(false)
	if got := invariants(history.NewProbe(false, map[types.UID]history.Answers{"a": unknown}, nil)); len(got) != 0 {
		t.Fatalf("an unknown UID answering as one: got %v, want nothing", got)
	}
	running := unknown
	running.CouldHaveRunning = false // an unknown UID that says nothing runs before any SyncKnownPods
	if got := invariants(history.NewProbe(false, map[types.UID]history.Answers{"a": running}, nil)); !slices.Contains(got, "S10") {
		t.Fatalf("an unknown UID answering CouldHaveRunningContainers=false before SyncKnownPods: got %v, want S10", got)
	}
	if got := invariants(nil); !slices.Contains(got, "probe") {
		t.Fatalf("a release without answers: got %v, want a probe violation", got)
	}
}
