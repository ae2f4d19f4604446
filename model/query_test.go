package model

import (
	"fmt"
	"strings"
	"testing"

	"github.com/podsim/podsim/model/ops"
)

var queryKinds = []ops.QueryKind{ops.IsPodKnownTerminated, ops.CouldHaveRunningContainers, ops.ShouldPodBeFinished,
	ops.IsPodTerminationRequested, ops.ShouldPodContainersBeTerminating, ops.ShouldPodRuntimeBeRemoved, ops.ShouldPodContentBeRemoved}

// TestQueryTable is SPEC §1.14 for every state, in the column order
// KnownTerminated, CouldHaveRunning, BeFinished, TermRequested,
// ContainersBeTerminating, RuntimeBeRemoved, ContentBeRemoved. The unstarted
// static cleanup row is the fixed one (§1.17-3): ContainersBeTerminating=T.
func TestQueryTable(t *testing.T) {
	a, sa := pod("a", 1), staticPod("a", "a", 1)
	created := []ops.Op{do(upd(ops.Create, a))}
	started := append(created, do(beginSync("a", ops.Create, 1)), do(end("a", ops.SyncPod, ops.OK)))
	evicted := append(append([]ops.Op{}, started...), do(killOpts(a, ops.KillOptions{Evict: true})))
	deleted := append(append([]ops.Op{}, started...), do(upd(ops.Update, deleting(a, 5))))
	killed := append(append([]ops.Op{}, started...), do(upd(ops.Kill, a)))
	ack := func(seq []ops.Op, grace int64) []ops.Op {
		return append(append([]ops.Op{}, seq...), do(beginTerminating("a", 1, grace)))
	}
	done := func(seq []ops.Op, grace int64) []ops.Op {
		return append(ack(seq, grace), do(end("a", ops.SyncTerminatingPod, ops.OK)))
	}
	finish := func(seq []ops.Op, grace int64) []ops.Op {
		return append(done(seq, grace), do(beginTerminated("a", 1)), do(end("a", ops.SyncTerminatedPod, ops.OK)))
	}
	rows := []struct {
		name   string // row name; the state is its first word
		ops    []ops.Op
		answer [7]bool
	}{
		{"U0", nil, [7]bool{false, true, false, false, false, false, false}},
		{"U1", []ops.Op{op(skp(), ops.KnownPods{})}, [7]bool{false, false, true, false, true, true, true}},
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
		{"F static cleaned up", []ops.Op{do(upd(ops.Kill, sa)), op(q(ops.ShouldPodBeFinished, "a"), yes)},
			[7]bool{true, false, true, true, true, true, false}},
		{"U0 runtime pod removed", []ops.Op{do(runtimeKill("a")), do(beginRuntime("a")), do(end("a", ops.SyncTerminatingRuntimePod, ops.OK)),
			op(q(ops.IsPodKnownTerminated, "a"), no), op(q(ops.CouldHaveRunningContainers, "a"), yes)},
			[7]bool{false, true, false, false, false, false, false}},
	}
	for _, row := range rows {
		for i, kind := range queryKinds {
			t.Run(fmt.Sprintf("%s/%s", row.name, kind), func(t *testing.T) {
				s := inState(t, mustRun(t, row.ops...), strings.Fields(row.name)[0])
				want := ops.Answer(row.answer[i])
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
	started := []ops.Op{do(upd(ops.Create, sa)), do(beginSync("a", ops.Create, 1)), do(end("a", ops.SyncPod, ops.OK))}
	killed := append(append([]ops.Op{}, started...), do(upd(ops.Kill, sa)))
	acked := append(append([]ops.Op{}, killed...), do(beginTerminating("a", 1, 30)))
	terminated := append(append([]ops.Op{}, acked...), do(end("a", ops.SyncTerminatingPod, ops.OK)))
	waitingKilled := append(append([]ops.Op{}, killed...), do(upd(ops.Create, staticPod("b", "web", 1))), do(upd(ops.Kill, staticPod("b", "web", 1))))
	rows := []struct {
		name, state string // state of pod a
		ops         []ops.Op
		want        ops.Answer
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
