package explain

import (
	"testing"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/realkubelet/script"
	"github.com/podsim/podsim/realkubelet/syncgate"
)

// TestPredicates: each predicate names its class exactly when every clause
// holds, and nothing when any one of them fails (the driver-level negative
// tests, with planted bugs, are the root package's explain_test.go).
func TestPredicates(t *testing.T) {
	const uid = types.UID("a")
	e := NewEvidence()
	housekeeping := script.Move{Kind: script.MoveAction, Action: plan.Action{Kind: plan.SyncKnown}}
	tick := script.Move{Kind: script.MoveTick}
	cleaned := cleanedUpUnstarted
	cleanedContent := cleaned
	cleanedContent[ContentBeRemoved] = true
	acked := cleaned
	acked[ContainersBeTerminating] = true
	one := int64(1)
	for _, c := range []struct {
		name, got, want string
	}{
		{"GE: the first call a ghost's", Overlap(syncgate.Overlap{First: &syncgate.Call{Ghost: true}, Second: &syncgate.Call{}}), "GE"},
		{"GE: the second call a ghost's", Overlap(syncgate.Overlap{First: &syncgate.Call{}, Second: &syncgate.Call{Ghost: true}}), "GE"},
		{"no ghost", Overlap(syncgate.Overlap{First: &syncgate.Call{}, Second: &syncgate.Call{}}), ""},
		{"G3", Lattice(cleaned), "G3"},
		{"G3 whatever ContentBeRemoved says", Lattice(cleanedContent), "G3"},
		{"acknowledged: not an unstarted cleanup", Lattice(acked), ""},
		{"G1: the kill reached a finished pod", e.OpenCompletion(uid, true, true, false), "G1"},
		{"G2: never started, no SyncTerminatingPod since", e.OpenCompletion(uid, false, false, false), "G2"},
		{"a SyncTerminatingPod succeeded since", e.OpenCompletion(uid, false, true, false), ""},
		{"L6 G2: the runtime-only record forgot the kill", NeverFired(false, true, true, ""), "G2"},
		{"L6: a SyncTerminatingPod of the kill's record succeeded", NeverFired(true, true, true, "GD"), ""},
		{"L6 GD: the kill's record is stuck by GD", NeverFired(false, false, false, "GD"), "GD"},
		{"L6: the kill's record ended before the GD record", NeverFired(false, false, true, "GD"), ""},
		{"L6: the kill's record stuck, not by GD", NeverFired(false, false, false, ""), ""},
		{"G4", Uncancelled(housekeeping, true, true), "G4"},
		{"G4 needs housekeeping", Uncancelled(tick, true, true), ""},
		{"G4 needs an orphan", Uncancelled(housekeeping, false, true), ""},
		{"G4 needs the call in flight before", Uncancelled(housekeeping, true, false), ""},
		{"M1", NaturalGrace(5, true, 5), "M1"},
		{"M1 needs the least offered", NaturalGrace(4, true, 5), ""},
		{"M1 needs an offer", NaturalGrace(0, false, 0), ""},
		{"GC", NilGrace(nil), "GC"},
		{"a grace below 1 is not GC", NilGrace(new(int64)), ""},
		{"a grace of 1 is not GC", NilGrace(&one), ""},
	} {
		if c.got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, c.got, c.want)
		}
	}
}

// TestEvidencePredicates: GB, GA, GD and G2 read the evidence, and an
// incarnation's end forgets it.
func TestEvidencePredicates(t *testing.T) {
	const uid = types.UID("a")
	e := NewEvidence()
	finished := Answers{BeFinished: true}
	if got := e.RuntimeLeft(uid, true, finished); got != "" {
		t.Errorf("GB with no runtime: got %q", got)
	}
	e.RuntimeKillStep[uid] = 3
	for _, c := range []struct {
		name   string
		static bool
		a      Answers
		want   string
	}{{"GB", true, finished, "GB"}, {"GB needs a static pod", false, finished, ""}, {"GB needs it finished", true, Answers{}, ""}} {
		if got := e.RuntimeLeft(uid, c.static, c.a); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
	e.StartedInc[uid] = true
	if got := e.RuntimeLeft(uid, true, finished); got != "" {
		t.Errorf("GB for a pod the worker started: got %q", got)
	}
	if got := e.OpenCompletion(uid, false, false, false); got != "" {
		t.Errorf("G2 for a started pod with no runtime call since: got %q", got)
	}
	if got := e.OpenCompletion(uid, false, false, true); got != "G2" {
		t.Errorf("G2 after a SyncTerminatingRuntimePod: got %q", got)
	}
	e.ZeroDeletionOffers[uid] = []int64{3}
	if got, none := e.Lengthened(uid, 3), e.Lengthened(uid, 4); got != "GA" || none != "" {
		t.Errorf("GA: got %q for 3, %q for 4", got, none)
	}
	if got := e.Stuck(uid, true, true, true); got != "" {
		t.Errorf("GD with no dropped retry: got %q", got)
	}
	e.DroppedRetry[uid] = true
	if got, out := e.Stuck(uid, true, true, true), e.Stuck(uid, false, true, true); got != "GD" || out != "" {
		t.Errorf("GD: got %q in config, %q out of it", got, out)
	}
	e.NoteGhost(uid, 7)
	e.NoteGhost(uid, 9)
	if e.GhostFrom[uid] != 7 {
		t.Errorf("GhostFrom: got %d, want the first step 7", e.GhostFrom[uid])
	}
	e.IncarnationOver(uid)
	if e.StartedInc[uid] || e.RuntimeKillStep[uid] != 0 || len(e.ZeroDeletionOffers[uid]) != 0 {
		t.Errorf("IncarnationOver kept %+v", e)
	}
}

// TestGEAfterAdoption: once a ghost adopted a record of the UID, an
// overlap with a call whose record ended under it, and the answers a
// completion onto the next record leaves, are GE's; neither is without the
// adoption, nor without the ended record or the misplaced completion.
func TestGEAfterAdoption(t *testing.T) {
	uid := types.UID("b")
	ended := syncgate.Overlap{UID: uid, First: &syncgate.Call{RecordEnded: true}, Second: &syncgate.Call{}}
	plain := syncgate.Overlap{UID: uid, First: &syncgate.Call{}, Second: &syncgate.Call{}}
	onto := Answers{KnownTerminated: true, TermRequested: true, RuntimeBeRemoved: true, ContentBeRemoved: true}
	e := NewEvidence()
	if e.OverlapOf(ended) != "" || e.LatticeOf(uid, onto) != "" {
		t.Errorf("GE named without an adoption")
	}
	e.NoteGhost(uid, 3)
	e.CompletedOntoNext[uid] = true
	for _, c := range []struct{ name, got, want string }{
		{"overlap, a call's record ended", e.OverlapOf(ended), "GE"},
		{"overlap, no record ended", e.OverlapOf(plain), ""},
		{"lattice, completed onto the next record", e.LatticeOf(uid, onto), "GE"},
		{"lattice G3 stays G3", e.LatticeOf(uid, cleanedUpUnstarted), "G3"},
	} {
		if c.got != c.want {
			t.Errorf("%s: %q, want %q", c.name, c.got, c.want)
		}
	}
	e.IncarnationOver(uid)
	if e.LatticeOf(uid, onto) != "" {
		t.Errorf("the misplaced completion outlived its incarnation")
	}
}

// TestGEFinishedOrNeverFinished: after a ghost's adoption, a record
// finished before it terminated (S9) is GE's only if a SyncTerminatedPod
// completed onto it, and one terminated but never finished (L2) only if a
// SyncTerminatingPod did; neither without the adoption, and neither once
// the incarnation is over.
func TestGEFinishedOrNeverFinished(t *testing.T) {
	uid := types.UID("a")
	for _, c := range []struct {
		name                    string
		ghost, finished, onto   bool
		wantEarly, wantUnfinish string
	}{
		{"nothing", false, false, false, "", ""},
		{"a ghost only", true, false, false, "", ""},
		{"finished onto the next record, no ghost", false, true, false, "", ""},
		{"completed onto the next record, no ghost", false, false, true, "", ""},
		{"a ghost, then finished onto the next record", true, true, false, "GE", ""},
		{"a ghost, then completed onto the next record", true, false, true, "", "GE"},
	} {
		e := NewEvidence()
		if c.ghost {
			e.NoteGhost(uid, 5)
		}
		e.FinishedOntoNext[uid], e.CompletedOntoNext[uid] = c.finished, c.onto
		if got := e.FinishedEarly(uid); got != c.wantEarly {
			t.Errorf("%s: FinishedEarly %q, want %q", c.name, got, c.wantEarly)
		}
		if got := e.NeverFinished(uid); got != c.wantUnfinish {
			t.Errorf("%s: NeverFinished %q, want %q", c.name, got, c.wantUnfinish)
		}
		e.IncarnationOver(uid)
		if e.FinishedEarly(uid) != "" || e.NeverFinished(uid) != "" {
			t.Errorf("%s: the misplaced completion outlived its incarnation", c.name)
		}
	}
}

// TestGEUncancelledByTwin: a SyncPod left uncancelled when another SyncPod
// of its UID returned terminal is GE's only after a ghost's adoption, and
// only for a terminal release of that UID in the step.
func TestGEUncancelledByTwin(t *testing.T) {
	uid := types.UID("b")
	terminal := script.Move{Kind: script.MoveRelease, UID: uid, Outcome: syncgate.ReturnTerminal}
	e := NewEvidence()
	if e.UncancelledByTwin(uid, terminal) != "" {
		t.Errorf("GE named without an adoption")
	}
	e.NoteGhost(uid, 4)
	for _, c := range []struct {
		name string
		last script.Move
		want string
	}{
		{"a terminal release of the UID", terminal, "GE"},
		{"an ok release of the UID", script.Move{Kind: script.MoveRelease, UID: uid, Outcome: syncgate.ReturnOK}, ""},
		{"a terminal release of another UID", script.Move{Kind: script.MoveRelease, UID: "c", Outcome: syncgate.ReturnTerminal}, ""},
		{"a tick", script.Move{Kind: script.MoveTick}, ""},
	} {
		if got := e.UncancelledByTwin(uid, c.last); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
