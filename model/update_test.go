package model

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/podsim/podsim/model/ops"
)

// stateOf builds a state in which pod a is in the named state of SPEC §1.2
// with its worker idle, by replaying the operations that lead there.
func stateOf(t *testing.T, name string) State {
	t.Helper()
	a := pod("a", 1)
	created := []ops.Op{do(upd(ops.Create, a))}
	synced := append(created, do(beginSync("a", ops.Create, 1)), do(end("a", ops.SyncPod, ops.OK)))
	requested := append(slices.Clone(synced), do(upd(ops.Kill, a)))
	terminating := append(slices.Clone(requested), do(beginTerminating("a", 1, 30)), do(end("a", ops.SyncTerminatingPod, ops.Failed)))
	terminated := append(slices.Clone(requested), do(beginTerminating("a", 1, 30)), do(end("a", ops.SyncTerminatingPod, ops.OK)))
	finished := append(slices.Clone(terminated), do(beginTerminated("a", 1)), do(end("a", ops.SyncTerminatedPod, ops.OK)))
	plans := map[string][]ops.Op{
		"U0": nil, "U1": {op(skp(), ops.KnownPods{})},
		"P": created, "P-static": {do(upd(ops.Create, staticPod("a", "a", 1)))},
		"S": synced, "TR": requested, "T": terminating, "D": terminated, "F": finished,
	}
	plan, ok := plans[name]
	if !ok {
		t.Fatalf("no state %q", name)
	}
	s := idle(t, append(mustRun(t, plan...), NewState()), "a")
	s.MayCancel = nil
	return s
}

// describeA is the record of a after a step, "" if there is none.
func describeA(s State) string {
	r, ok := s.Records["a"]
	if !ok {
		return ""
	}
	return DescribeRecord(r, s.Notify["a"])
}

// updateRow is one cell of the §1.5 table: from a state, an update, the
// record right after it, the completions due at once, the possible next
// callbacks.
type updateRow struct {
	state  string
	update ops.UpdatePod
	want   string
	due    []Obligation
	next   []ops.SyncFn
}

func updateTableRows() []updateRow {
	a2 := pod("a", 2)
	withCompletion := func(u ops.UpdatePod, id int) ops.UpdatePod { u.Kill.CompletionID = id; return u }
	busy := func(u ops.UpdatePod) ops.UpdatePod { u.Cache = ops.CacheBusy; return u }
	idleCache := func(u ops.UpdatePod) ops.UpdatePod { u.Cache = ops.CacheIdle; return u }
	return []updateRow{
		{"U0", upd(ops.Create, a2), "a P grace=- pending=create@v2", nil, []ops.SyncFn{ops.SyncPod}},
		{"U0", upd(ops.Update, a2), "a P grace=- pending=update@v2", nil, []ops.SyncFn{ops.SyncPod}},
		{"U0", upd(ops.Sync, a2), "a P grace=- pending=sync@v2", nil, []ops.SyncFn{ops.SyncPod}},
		{"U0", upd(ops.Create, deleting(a2, 5)), "a TR deleted grace=5 pending=create@v2", nil, []ops.SyncFn{ops.SyncTerminatingPod}},
		{"U0", busy(upd(ops.Create, phase(a2, ops.PhaseSucceeded))), "a TR grace=30 pending=create@v2", nil, []ops.SyncFn{ops.SyncTerminatingPod}},
		{"U0", idleCache(upd(ops.Create, phase(a2, ops.PhaseFailed))), "a D grace=- pending=create@v2", nil, []ops.SyncFn{ops.SyncTerminatedPod}},
		{"U0", upd(ops.Kill, a2), "a TR grace=30 pending=kill@v2", nil, []ops.SyncFn{ops.SyncTerminatingPod}},
		{"U0", upd(ops.Kill, staticPod("a", "a", 2)), "a TR static grace=30 pending=kill@v2", nil, nil},
		{"U0", runtimeKill("a"), "a TR deleted runtime grace=1 pending=kill@runtime", nil, []ops.SyncFn{ops.SyncTerminatingRuntimePod}},
		{"U0", ops.UpdatePod{Type: ops.Create, Pod: ops.Pod{UID: "a"}, RuntimeOnly: true}, "", nil, nil},
		{"U1", upd(ops.Create, a2), "a P grace=- pending=create@v2", nil, []ops.SyncFn{ops.SyncPod}},
		{"U1", withCompletion(upd(ops.Kill, a2), 7), "a TR grace=30 pending=kill@v2 notify=[7]", nil, []ops.SyncFn{ops.SyncTerminatingPod}},

		{"P", upd(ops.Create, a2), "a P grace=- pending=create@v2", nil, []ops.SyncFn{ops.SyncPod}},
		{"P", upd(ops.Update, a2), "a P grace=- pending=update@v2", nil, []ops.SyncFn{ops.SyncPod}},
		{"P", upd(ops.Kill, a2), "a TR grace=30 pending=kill@v2", nil, []ops.SyncFn{ops.SyncTerminatingPod}},
		{"P-static", upd(ops.Kill, staticPod("a", "a", 2)), "a TR static grace=30 pending=kill@v2", nil, nil},
		{"P", runtimeKill("a"), "a TR deleted runtime grace=1 pending=kill@v1", nil, []ops.SyncFn{ops.SyncTerminatingPod}},

		{"S", upd(ops.Create, a2), "a S grace=- pending=create@v2", nil, []ops.SyncFn{ops.SyncPod}},
		{"S", upd(ops.Update, a2), "a S grace=- pending=update@v2", nil, []ops.SyncFn{ops.SyncPod}},
		{"S", upd(ops.Sync, a2), "a S grace=- pending=sync@v2", nil, []ops.SyncFn{ops.SyncPod}},
		{"S", withCompletion(upd(ops.Update, a2), 7), "a S grace=- pending=update@v2", []Obligation{{"a", 7}}, []ops.SyncFn{ops.SyncPod}},
		{"S", upd(ops.Update, deleting(a2, 5)), "a TR deleted grace=5 pending=update@v2", nil, []ops.SyncFn{ops.SyncTerminatingPod}},
		{"S", upd(ops.Update, phase(a2, ops.PhaseSucceeded)), "a TR grace=30 pending=update@v2", nil, []ops.SyncFn{ops.SyncTerminatingPod}},
		{"S", withCompletion(killOpts(a2, ops.KillOptions{Evict: true}), 7), "a TR evicted grace=30 pending=kill@v2 notify=[7]", nil, []ops.SyncFn{ops.SyncTerminatingPod}},
		{"S", runtimeKill("a"), "a TR deleted runtime grace=1 pending=kill@v1", nil, []ops.SyncFn{ops.SyncTerminatingPod}},
		{"S", ops.UpdatePod{Type: ops.Sync, Pod: ops.Pod{UID: "a"}, RuntimeOnly: true}, "a S grace=- pending=-", nil, nil},

		{"TR", upd(ops.Create, a2), "a TR restart grace=30 pending=kill@v1", nil, []ops.SyncFn{ops.SyncTerminatingPod}},
		{"TR", upd(ops.Update, a2), "a TR grace=30 pending=update@v2", nil, []ops.SyncFn{ops.SyncTerminatingPod}},
		{"TR", upd(ops.Update, deleting(a2, 5)), "a TR grace=5 pending=update@v2", nil, []ops.SyncFn{ops.SyncTerminatingPod}},
		{"TR", withCompletion(killOpts(a2, ops.KillOptions{GraceOverride: 10, HasGraceOverride: true}), 8), "a TR grace=10 pending=kill@v2 notify=[8]", nil, []ops.SyncFn{ops.SyncTerminatingPod}},
		{"TR", runtimeKill("a"), "a TR runtime grace=1 pending=kill@v1", nil, []ops.SyncFn{ops.SyncTerminatingPod}},

		{"T", withCompletion(upd(ops.Create, a2), 3), "a T restart grace=30 pending=- notify=[3]", nil, nil},
		{"T", upd(ops.Sync, a2), "a T grace=30 pending=sync@v2", nil, []ops.SyncFn{ops.SyncTerminatingPod}},
		{"T", withCompletion(upd(ops.Kill, a2), 8), "a T grace=30 pending=kill@v2 notify=[8]", nil, []ops.SyncFn{ops.SyncTerminatingPod}},
		{"T", runtimeKill("a"), "a T runtime grace=1 pending=kill@v1", nil, []ops.SyncFn{ops.SyncTerminatingPod}},

		{"D", upd(ops.Create, a2), "a D restart grace=30 pending=sync@v1", nil, []ops.SyncFn{ops.SyncTerminatedPod}},
		{"D", withCompletion(upd(ops.Update, a2), 9), "a D grace=30 pending=update@v2", []Obligation{{"a", 9}}, []ops.SyncFn{ops.SyncTerminatedPod}},
		{"D", withCompletion(upd(ops.Kill, a2), 9), "a D grace=30 pending=kill@v2", []Obligation{{"a", 9}}, []ops.SyncFn{ops.SyncTerminatedPod}},
		{"D", runtimeKill("a"), "a D runtime grace=30 pending=sync@v1", nil, []ops.SyncFn{ops.SyncTerminatedPod}},

		{"F", withCompletion(upd(ops.Create, a2), 4), "a F restart grace=30 pending=-", []Obligation{{"a", 4}}, nil},
		{"F", upd(ops.Update, a2), "a F grace=30 pending=-", nil, nil},
		{"F", withCompletion(upd(ops.Kill, a2), 4), "a F grace=30 pending=-", []Obligation{{"a", 4}}, nil},
		{"F", runtimeKill("a"), "a F runtime grace=30 pending=-", nil, nil},
	}
}

// TestUpdateTable is SPEC §1.5: every state × update type, the record right
// after UpdatePod, what fires at once, and which callback may run next.
func TestUpdateTable(t *testing.T) {
	for _, row := range updateTableRows() {
		name := fmt.Sprintf("%s/%s", row.state, strings.TrimPrefix(ops.Describe(row.update, nil), "client UpdatePod "))
		t.Run(name, func(t *testing.T) {
			next, err := Step(stateOf(t, row.state), row.update, nil)
			if err != nil || len(next) != 1 {
				t.Fatalf("Step: %d states, %v", len(next), err)
			}
			if got := describeA(next[0]); got != row.want {
				t.Errorf("record: got %q, want %q", got, row.want)
			}
			if !slices.Equal(next[0].Due, row.due) {
				t.Errorf("due: got %v, want %v", next[0].Due, row.due)
			}
			if len(row.due) > 0 {
				return // nothing else may happen before the fire
			}
			if got := nextCalls(Closure(next), "a"); !slices.Equal(got, row.next) {
				t.Errorf("next calls: got %v, want %v", got, row.next)
			}
		})
	}
}

// TestUnknownCacheBranches: a first-seen terminal pod with an unknown cache
// view may be in D (restart shortcut) or TR (§1.4 step 2).
func TestUnknownCacheBranches(t *testing.T) {
	next, err := Step(NewState(), upd(ops.Create, phase(pod("a", 1), ops.PhaseSucceeded)), nil)
	if err != nil || len(next) != 2 {
		t.Fatalf("got %d states, %v; want 2", len(next), err)
	}
	got := []string{describeA(next[0]), describeA(next[1])}
	want := []string{"a D grace=- pending=create@v1", "a TR grace=30 pending=create@v1"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// TestCancelOnTermination: becoming terminating or a shorter grace cancels a
// pass in progress (due) and may cancel an idle context; an unchanged grace
// does not cancel (§1.4 step 10, §1.15).
func TestCancelOnTermination(t *testing.T) {
	a := pod("a", 1)
	inFlight := mustRun(t, do(upd(ops.Create, a)), do(beginSync("a", ops.Create, 1)))
	next, err := Next(inFlight, upd(ops.Kill, a), nil)
	if err != nil || !slices.Equal(next[0].Due, []Obligation{{UID: "a"}}) {
		t.Fatalf("kill during SyncPod: due %v, %v; want cancel/a", next[0].Due, err)
	}
	if _, err := Next(next, q(ops.IsPodTerminationRequested, "a"), yes); err == nil {
		t.Fatal("query before the cancel fired was accepted")
	}
	next = mustRun(t, do(upd(ops.Create, a)), do(beginSync("a", ops.Create, 1)), do(upd(ops.Kill, a)), do(ops.CancelFired{UID: "a"}))
	if _, err := Next(next, ops.CancelFired{UID: "a"}, nil); err == nil {
		t.Fatal("second cancel of the same context was accepted")
	}
	terminating := mustRun(t, do(upd(ops.Kill, a)), do(beginTerminating("a", 1, 30)))
	same, _ := Next(terminating, upd(ops.Update, a), nil)
	if len(same[0].Due) != 0 {
		t.Fatalf("unchanged grace: due %v", same[0].Due)
	}
	shorter, _ := Next(terminating, upd(ops.Update, deleting(a, 3)), nil)
	if !slices.Equal(shorter[0].Due, []Obligation{{UID: "a"}}) {
		t.Fatalf("shorter grace: due %v, want cancel/a", shorter[0].Due)
	}
	idleKill, _ := Step(stateOf(t, "S"), upd(ops.Kill, a), nil)
	if !slices.Equal(idleKill[0].MayCancel, []string{"a"}) || len(idleKill[0].Due) != 0 {
		t.Fatalf("idle kill: may %v due %v", idleKill[0].MayCancel, idleKill[0].Due)
	}
	for _, o := range []ops.Op{do(ops.CancelFired{UID: "a"}), op(q(ops.IsPodTerminationRequested, "a"), yes)} {
		if _, err := Next([]State{idleKill[0]}, o.Input, o.Output); err != nil {
			t.Fatalf("%s after idle kill: %v", ops.Describe(o.Input, o.Output), err)
		}
	}
	late, _ := Next([]State{idleKill[0]}, q(ops.IsPodTerminationRequested, "a"), yes)
	if _, err := Next(late, ops.CancelFired{UID: "a"}, nil); err == nil {
		t.Fatal("cancel of an idle context after another locked step was accepted")
	}
}
