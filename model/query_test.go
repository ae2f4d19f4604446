package model

import (
	"fmt"
	"strings"
	"testing"
)

var queryKinds = []QueryKind{IsPodKnownTerminated, CouldHaveRunningContainers, ShouldPodBeFinished,
	IsPodTerminationRequested, ShouldPodContainersBeTerminating, ShouldPodRuntimeBeRemoved, ShouldPodContentBeRemoved}

// TestQueryTable is SPEC §1.14 for every state, in the column order
// KnownTerminated, CouldHaveRunning, BeFinished, TermRequested,
// ContainersBeTerminating, RuntimeBeRemoved, ContentBeRemoved. The unstarted
// static cleanup row is the fixed one (§1.17-3): ContainersBeTerminating=T.
func TestQueryTable(t *testing.T) {
	a, sa := pod("a", 1), staticPod("a", "a", 1)
	created := []Op{do(upd(Create, a))}
	started := append(created, do(beginSync("a", Create, 1)), do(end("a", SyncPod, OK)))
	evicted := append(append([]Op{}, started...), do(killOpts(a, KillOptions{Evict: true})))
	deleted := append(append([]Op{}, started...), do(upd(Update, deleting(a, 5))))
	killed := append(append([]Op{}, started...), do(upd(Kill, a)))
	ack := func(ops []Op, grace int64) []Op {
		return append(append([]Op{}, ops...), do(beginTerminating("a", 1, grace)))
	}
	done := func(ops []Op, grace int64) []Op {
		return append(ack(ops, grace), do(end("a", SyncTerminatingPod, OK)))
	}
	finish := func(ops []Op, grace int64) []Op {
		return append(done(ops, grace), do(beginTerminated("a", 1)), do(end("a", SyncTerminatedPod, OK)))
	}
	rows := []struct {
		name   string // row name; the state is its first word
		ops    []Op
		answer [7]bool
	}{
		{"U0", nil, [7]bool{false, true, false, false, false, false, false}},
		{"U1", []Op{op(skp(), KnownPods{})}, [7]bool{false, false, true, false, true, true, true}},
		{"P", created, [7]bool{false, true, false, false, false, false, false}},
		{"S", started, [7]bool{false, true, false, false, false, false, false}},
		{"TR killed", killed, [7]bool{false, true, false, true, false, false, false}},
		{"TR evicted", evicted, [7]bool{false, true, false, true, false, false, true}},
		{"T killed", ack(killed, 30), [7]bool{false, true, false, true, true, false, false}},
		{"T evicted", ack(evicted, 30), [7]bool{false, true, false, true, true, false, true}},
		{"D killed", done(killed, 30), [7]bool{true, false, false, true, true, true, false}},
		{"D deleted", done(deleted, 5), [7]bool{true, false, false, true, true, true, true}},
		{"F killed", finish(killed, 30), [7]bool{true, false, true, true, true, true, false}},
		{"F deleted", finish(deleted, 5), [7]bool{true, false, true, true, true, true, true}},
		{"F static cleaned up", []Op{do(upd(Kill, sa)), op(q(ShouldPodBeFinished, "a"), yes)},
			[7]bool{true, false, true, true, true, true, false}},
		{"U0 runtime pod removed", []Op{do(runtimeKill("a")), do(beginRuntime("a")), do(end("a", SyncTerminatingRuntimePod, OK)),
			op(q(IsPodKnownTerminated, "a"), no), op(q(CouldHaveRunningContainers, "a"), yes)},
			[7]bool{false, true, false, false, false, false, false}},
	}
	for _, row := range rows {
		for i, kind := range queryKinds {
			t.Run(fmt.Sprintf("%s/%s", row.name, kind), func(t *testing.T) {
				s := inState(t, mustRun(t, row.ops...), strings.Fields(row.name)[0])
				want := Answer(row.answer[i])
				if _, err := Step(s, q(kind, "a"), want); err != nil {
					t.Errorf("answer %v rejected: %v", want, err)
				}
				if _, err := Step(s, q(kind, "a"), !want); err == nil {
					t.Errorf("answer %v accepted", !want)
				}
			})
		}
	}
}

// TestMirrorPodTerminating: true exactly while the started static UID of the
// full name is in TR or T (§1.10).
func TestMirrorPodTerminating(t *testing.T) {
	sa := staticPod("a", "web", 1)
	started := []Op{do(upd(Create, sa)), do(beginSync("a", Create, 1)), do(end("a", SyncPod, OK))}
	killed := append(append([]Op{}, started...), do(upd(Kill, sa)))
	acked := append(append([]Op{}, killed...), do(beginTerminating("a", 1, 30)))
	terminated := append(append([]Op{}, acked...), do(end("a", SyncTerminatingPod, OK)))
	waitingKilled := append(append([]Op{}, killed...), do(upd(Create, staticPod("b", "web", 1))), do(upd(Kill, staticPod("b", "web", 1))))
	rows := []struct {
		name, state string // state of pod a
		ops         []Op
		want        Answer
	}{
		{"unknown name", "U0", nil, no},
		{"started", "S", started, no},
		{"termination requested", "TR", killed, yes},
		{"terminating", "T", acked, yes},
		{"terminated", "D", terminated, no},
		{"a killed waiter does not count", "TR", waitingKilled, yes},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			s := inState(t, mustRun(t, row.ops...), row.state)
			if _, err := Step(s, mirror(sa.FullName()), row.want); err != nil {
				t.Errorf("%v rejected: %v", row.want, err)
			}
			if _, err := Step(s, mirror(sa.FullName()), !row.want); err == nil {
				t.Errorf("%v accepted", !row.want)
			}
		})
	}
}

// inState picks from a set of possible states one in which pod a is in the
// named state of SPEC §1.2 ("U0"/"U1" for no record).
// Right after a callback returns, or while an update waits, the set also
// holds states in which the hidden worker step already happened; the §1.14
// table is about each state, so the test picks one.
func inState(t *testing.T, states []State, name string) State {
	t.Helper()
	for _, s := range states {
		r, ok := s.Records["a"]
		switch {
		case !ok && (name == "U0") == !s.PodsSynced && (name == "U0" || name == "U1"):
			return s
		case ok && r.StateName() == name && len(s.Due) == 0:
			return s
		}
	}
	t.Fatalf("no possible state with a in %s", name)
	return State{}
}
