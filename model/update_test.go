package model

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// stateOf builds a state in which pod a is in the named state of SPEC §1.2
// with its worker idle, by replaying the operations that lead there.
func stateOf(t *testing.T, name string) State {
	t.Helper()
	a := pod("a", 1)
	created := []Op{do(upd(Create, a))}
	synced := append(created, do(beginSync("a", Create, 1)), do(end("a", SyncPod, OK)))
	requested := append(slices.Clone(synced), do(upd(Kill, a)))
	terminating := append(slices.Clone(requested), do(beginTerminating("a", 1, 30)), do(end("a", SyncTerminatingPod, Failed)))
	terminated := append(slices.Clone(requested), do(beginTerminating("a", 1, 30)), do(end("a", SyncTerminatingPod, OK)))
	finished := append(slices.Clone(terminated), do(beginTerminated("a", 1)), do(end("a", SyncTerminatedPod, OK)))
	plans := map[string][]Op{
		"U0": nil, "U1": {op(skp(), KnownPods{})},
		"P": created, "P-static": {do(upd(Create, staticPod("a", "a", 1)))},
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
	update UpdatePod
	want   string
	due    []Obligation
	next   []SyncFn
}

func updateTableRows() []updateRow {
	a2 := pod("a", 2)
	withCompletion := func(u UpdatePod, id int) UpdatePod { u.Kill.CompletionID = id; return u }
	busy := func(u UpdatePod) UpdatePod { u.Cache = CacheBusy; return u }
	idleCache := func(u UpdatePod) UpdatePod { u.Cache = CacheIdle; return u }
	return []updateRow{
		{"U0", upd(Create, a2), "a P grace=- pending=create@v2", nil, []SyncFn{SyncPod}},
		{"U0", upd(Update, a2), "a P grace=- pending=update@v2", nil, []SyncFn{SyncPod}},
		{"U0", upd(Sync, a2), "a P grace=- pending=sync@v2", nil, []SyncFn{SyncPod}},
		{"U0", upd(Create, deleting(a2, 5)), "a TR deleted grace=5 pending=create@v2", nil, []SyncFn{SyncTerminatingPod}},
		{"U0", busy(upd(Create, phase(a2, PhaseSucceeded))), "a TR grace=30 pending=create@v2", nil, []SyncFn{SyncTerminatingPod}},
		{"U0", idleCache(upd(Create, phase(a2, PhaseFailed))), "a D grace=- pending=create@v2", nil, []SyncFn{SyncTerminatedPod}},
		{"U0", upd(Kill, a2), "a TR grace=30 pending=kill@v2", nil, []SyncFn{SyncTerminatingPod}},
		{"U0", upd(Kill, staticPod("a", "a", 2)), "a TR static grace=30 pending=kill@v2", nil, nil},
		{"U0", runtimeKill("a"), "a TR deleted runtime grace=1 pending=kill@runtime", nil, []SyncFn{SyncTerminatingRuntimePod}},
		{"U0", UpdatePod{Type: Create, Pod: Pod{UID: "a"}, RuntimeOnly: true}, "", nil, nil},
		{"U1", upd(Create, a2), "a P grace=- pending=create@v2", nil, []SyncFn{SyncPod}},
		{"U1", withCompletion(upd(Kill, a2), 7), "a TR grace=30 pending=kill@v2 notify=[7]", nil, []SyncFn{SyncTerminatingPod}},

		{"P", upd(Create, a2), "a P grace=- pending=create@v2", nil, []SyncFn{SyncPod}},
		{"P", upd(Update, a2), "a P grace=- pending=update@v2", nil, []SyncFn{SyncPod}},
		{"P", upd(Kill, a2), "a TR grace=30 pending=kill@v2", nil, []SyncFn{SyncTerminatingPod}},
		{"P-static", upd(Kill, staticPod("a", "a", 2)), "a TR static grace=30 pending=kill@v2", nil, nil},
		{"P", runtimeKill("a"), "a TR deleted runtime grace=1 pending=kill@v1", nil, []SyncFn{SyncTerminatingPod}},

		{"S", upd(Create, a2), "a S grace=- pending=create@v2", nil, []SyncFn{SyncPod}},
		{"S", upd(Update, a2), "a S grace=- pending=update@v2", nil, []SyncFn{SyncPod}},
		{"S", upd(Sync, a2), "a S grace=- pending=sync@v2", nil, []SyncFn{SyncPod}},
		{"S", withCompletion(upd(Update, a2), 7), "a S grace=- pending=update@v2", []Obligation{{"a", 7}}, []SyncFn{SyncPod}},
		{"S", upd(Update, deleting(a2, 5)), "a TR deleted grace=5 pending=update@v2", nil, []SyncFn{SyncTerminatingPod}},
		{"S", upd(Update, phase(a2, PhaseSucceeded)), "a TR grace=30 pending=update@v2", nil, []SyncFn{SyncTerminatingPod}},
		{"S", withCompletion(killOpts(a2, KillOptions{Evict: true}), 7), "a TR evicted grace=30 pending=kill@v2 notify=[7]", nil, []SyncFn{SyncTerminatingPod}},
		{"S", runtimeKill("a"), "a TR deleted runtime grace=1 pending=kill@v1", nil, []SyncFn{SyncTerminatingPod}},
		{"S", UpdatePod{Type: Sync, Pod: Pod{UID: "a"}, RuntimeOnly: true}, "a S grace=- pending=-", nil, nil},

		{"TR", upd(Create, a2), "a TR restart grace=30 pending=kill@v1", nil, []SyncFn{SyncTerminatingPod}},
		{"TR", upd(Update, a2), "a TR grace=30 pending=update@v2", nil, []SyncFn{SyncTerminatingPod}},
		{"TR", upd(Update, deleting(a2, 5)), "a TR grace=5 pending=update@v2", nil, []SyncFn{SyncTerminatingPod}},
		{"TR", withCompletion(killOpts(a2, KillOptions{GraceOverride: 10, HasGraceOverride: true}), 8), "a TR grace=10 pending=kill@v2 notify=[8]", nil, []SyncFn{SyncTerminatingPod}},
		{"TR", runtimeKill("a"), "a TR runtime grace=1 pending=kill@v1", nil, []SyncFn{SyncTerminatingPod}},

		{"T", withCompletion(upd(Create, a2), 3), "a T restart grace=30 pending=- notify=[3]", nil, nil},
		{"T", upd(Sync, a2), "a T grace=30 pending=sync@v2", nil, []SyncFn{SyncTerminatingPod}},
		{"T", withCompletion(upd(Kill, a2), 8), "a T grace=30 pending=kill@v2 notify=[8]", nil, []SyncFn{SyncTerminatingPod}},
		{"T", runtimeKill("a"), "a T runtime grace=1 pending=kill@v1", nil, []SyncFn{SyncTerminatingPod}},

		{"D", upd(Create, a2), "a D restart grace=30 pending=sync@v1", nil, []SyncFn{SyncTerminatedPod}},
		{"D", withCompletion(upd(Update, a2), 9), "a D grace=30 pending=update@v2", []Obligation{{"a", 9}}, []SyncFn{SyncTerminatedPod}},
		{"D", withCompletion(upd(Kill, a2), 9), "a D grace=30 pending=kill@v2", []Obligation{{"a", 9}}, []SyncFn{SyncTerminatedPod}},
		{"D", runtimeKill("a"), "a D runtime grace=30 pending=sync@v1", nil, []SyncFn{SyncTerminatedPod}},

		{"F", withCompletion(upd(Create, a2), 4), "a F restart grace=30 pending=-", []Obligation{{"a", 4}}, nil},
		{"F", upd(Update, a2), "a F grace=30 pending=-", nil, nil},
		{"F", withCompletion(upd(Kill, a2), 4), "a F grace=30 pending=-", []Obligation{{"a", 4}}, nil},
		{"F", runtimeKill("a"), "a F runtime grace=30 pending=-", nil, nil},
	}
}

// TestUpdateTable is SPEC §1.5: every state × update type, the record right
// after UpdatePod, what fires at once, and which callback may run next.
func TestUpdateTable(t *testing.T) {
	for _, row := range updateTableRows() {
		name := fmt.Sprintf("%s/%s", row.state, strings.TrimPrefix(Describe(row.update, nil), "client UpdatePod "))
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
	next, err := Step(NewState(), upd(Create, phase(pod("a", 1), PhaseSucceeded)), nil)
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
	inFlight := mustRun(t, do(upd(Create, a)), do(beginSync("a", Create, 1)))
	next, err := Next(inFlight, upd(Kill, a), nil)
	if err != nil || !slices.Equal(next[0].Due, []Obligation{{UID: "a"}}) {
		t.Fatalf("kill during SyncPod: due %v, %v; want cancel/a", next[0].Due, err)
	}
	if _, err := Next(next, q(IsPodTerminationRequested, "a"), yes); err == nil {
		t.Fatal("query before the cancel fired was accepted")
	}
	next = mustRun(t, do(upd(Create, a)), do(beginSync("a", Create, 1)), do(upd(Kill, a)), do(CancelFired{UID: "a"}))
	if _, err := Next(next, CancelFired{UID: "a"}, nil); err == nil {
		t.Fatal("second cancel of the same context was accepted")
	}
	terminating := mustRun(t, do(upd(Kill, a)), do(beginTerminating("a", 1, 30)))
	same, _ := Next(terminating, upd(Update, a), nil)
	if len(same[0].Due) != 0 {
		t.Fatalf("unchanged grace: due %v", same[0].Due)
	}
	shorter, _ := Next(terminating, upd(Update, deleting(a, 3)), nil)
	if !slices.Equal(shorter[0].Due, []Obligation{{UID: "a"}}) {
		t.Fatalf("shorter grace: due %v, want cancel/a", shorter[0].Due)
	}
	idleKill, _ := Step(stateOf(t, "S"), upd(Kill, a), nil)
	if !slices.Equal(idleKill[0].MayCancel, []string{"a"}) || len(idleKill[0].Due) != 0 {
		t.Fatalf("idle kill: may %v due %v", idleKill[0].MayCancel, idleKill[0].Due)
	}
	for _, o := range []Op{do(CancelFired{UID: "a"}), op(q(IsPodTerminationRequested, "a"), yes)} {
		if _, err := Next([]State{idleKill[0]}, o.Input, o.Output); err != nil {
			t.Fatalf("%s after idle kill: %v", Describe(o.Input, o.Output), err)
		}
	}
	late, _ := Next([]State{idleKill[0]}, q(IsPodTerminationRequested, "a"), yes)
	if _, err := Next(late, CancelFired{UID: "a"}, nil); err == nil {
		t.Fatal("cancel of an idle context after another locked step was accepted")
	}
}
