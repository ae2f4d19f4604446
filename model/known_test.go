package model

import (
	"slices"
	"testing"

	"github.com/podsim/podsim/model/ops"
)

// knownRow: from a state, SyncKnownPods(desired) returns result and leaves
// record a as after ("" = purged) with the completions due.
type knownRow struct {
	name    string
	state   func(*testing.T) State
	desired []string
	result  ops.KnownPods
	after   string
	due     []Obligation
}

func knownTableRows() []knownRow {
	a, sa := pod("a", 1), staticPod("a", "a", 1)
	restart := func(name string) func(*testing.T) State {
		return func(t *testing.T) State {
			next, err := Step(stateOf(t, name), upd(ops.Create, pod("a", 2)), nil)
			if err != nil {
				t.Fatal(err)
			}
			return next[0]
		}
	}
	named := func(name string) func(*testing.T) State {
		return func(t *testing.T) State { return stateOf(t, name) }
	}
	after := func(name string, seq ...ops.Op) func(*testing.T) State {
		return func(t *testing.T) State { return inState(t, mustRun(t, seq...), name) }
	}
	return []knownRow{
		{"finished orphan purged", named("F"), nil, nil, "", nil},
		{"finished desired kept", named("F"), []string{"a"}, ops.KnownPods{kp("a", ops.TerminatedWork, false, true, false)}, "a F grace=30 pending=-", nil},
		{"finished restart purged though desired", restart("F"), []string{"a"}, nil, "", nil},
		{"terminating restart waits", restart("T"), []string{"a"}, ops.KnownPods{kp("a", ops.TerminatingWork, false, true, false)}, "a T restart grace=30 pending=-", nil},
		{"pending desired kept", named("P"), []string{"a"}, ops.KnownPods{kp("a", ops.SyncWork, false, true, false)}, "a P grace=- pending=create@v1", nil},
		{"unstarted orphan purged, completion fires",
			after("TR", do(killOpts(a, ops.KillOptions{CompletionID: 5}))), nil, nil, "", []Obligation{{"a", 5}}},
		{"waiting static orphan purged", named("P-static"), nil, nil, "", nil},
		{"started orphan driven to termination", named("S"), nil, ops.KnownPods{kp("a", ops.TerminatingWork, true, true, false)},
			"a TR deleted grace=30 pending=sync@v1", nil},
		{"runtime-only orphan kept", after("TR", do(runtimeKill("a"))), nil, ops.KnownPods{kp("a", ops.TerminatingWork, true, false, false)},
			"a TR deleted runtime grace=1 pending=kill@runtime", nil},
		{"terminating orphan keeps its pending update", named("TR"), nil, ops.KnownPods{kp("a", ops.TerminatingWork, true, true, false)},
			"a TR deleted grace=30 pending=kill@v1", nil},
		{"terminating orphan replays", named("T"), nil, ops.KnownPods{kp("a", ops.TerminatingWork, true, true, false)},
			"a T deleted grace=30 pending=sync@v1", nil},
		{"terminated orphan", named("D"), nil, ops.KnownPods{kp("a", ops.TerminatedWork, true, true, false)},
			"a D deleted grace=30 pending=sync@v1", nil},
		{"static cleaned up before start has no config",
			after("F", do(upd(ops.Kill, sa)), op(q(ops.ShouldPodBeFinished, "a"), yes)), []string{"a"},
			ops.KnownPods{kp("a", ops.TerminatedWork, false, false, false)}, "a F static grace=30 pending=-", nil},
		{"static waiting reports its pending config", named("P-static"), []string{"a"},
			ops.KnownPods{kp("a", ops.SyncWork, false, true, true)}, "a P static grace=- pending=create@v1", nil},
	}
}

// TestSyncKnownPodsTable is SPEC §1.12 (and Test_removeTerminatedWorker):
// which records are purged, which are driven to termination, what is
// reported.
func TestSyncKnownPodsTable(t *testing.T) {
	for _, row := range knownTableRows() {
		t.Run(row.name, func(t *testing.T) {
			s := row.state(t)
			next, err := Step(s, skp(row.desired...), row.result)
			if err != nil {
				t.Fatalf("SyncKnownPods: %v", err)
			}
			n := next[0]
			if got := describeA(n); got != row.after {
				t.Errorf("record: got %q, want %q", got, row.after)
			}
			if !slices.Equal(n.Due, row.due) {
				t.Errorf("due: got %v, want %v", n.Due, row.due)
			}
			if !n.PodsSynced {
				t.Error("podsSynced not set")
			}
			// A purge gives up the started entry; wait-list entries stay
			// until a scan prunes them (SPEC §1.10 lazy pruning, upstream).
			if len(n.StartedStatic) != 0 && row.after == "" {
				t.Errorf("purged pod still started: %v", n.StartedStatic)
			}
			if _, err := Step(s, skp(row.desired...), append(slices.Clone(row.result), ops.KnownPod{UID: "zz"})); err == nil {
				t.Error("a result with an extra UID was accepted")
			}
		})
	}
}

// TestOrphanDrivingCancels is our fix of §1.17-4 (G4): a started orphan with
// a SyncPod in flight gets its context cancelled by SyncKnownPods.
func TestOrphanDrivingCancels(t *testing.T) {
	states := mustRun(t, do(upd(ops.Create, pod("a", 1))), do(beginSync("a", ops.Create, 1)))
	next, err := Next(states, skp(), ops.KnownPods{kp("a", ops.TerminatingWork, true, true, false)})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range next {
		if !slices.Equal(s.Due, []Obligation{{UID: "a"}}) {
			t.Fatalf("due %v, want cancel/a", s.Due)
		}
	}
	if _, err := Next(next, q(ops.IsPodTerminationRequested, "a"), yes); err == nil {
		t.Fatal("query before the cancel was accepted")
	}
	if _, err := Next(next, ops.CancelFired{UID: "a"}, nil); err != nil {
		t.Fatalf("cancel rejected: %v", err)
	}
}

// TestUnknownUIDBeforeAndAfterSync is S10 and TestSyncKnownPods' "abc".
func TestUnknownUIDBeforeAndAfterSync(t *testing.T) {
	before := mustRun(t)
	after := mustRun(t, op(skp(), ops.KnownPods{}))
	for _, kind := range queryKinds {
		pre := kind == ops.CouldHaveRunningContainers
		post := kind != ops.CouldHaveRunningContainers && kind != ops.IsPodKnownTerminated && kind != ops.IsPodTerminationRequested
		if _, err := Next(before, q(kind, "abc"), ops.Answer(pre)); err != nil {
			t.Errorf("before sync %s: %v", kind, err)
		}
		if _, err := Next(after, q(kind, "abc"), ops.Answer(post)); err != nil {
			t.Errorf("after sync %s: %v", kind, err)
		}
	}
}
