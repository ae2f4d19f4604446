package safety

import (
	"slices"
	"testing"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
)

// safetyEdgeCase is a story and the invariants it must be reported under.
type safetyEdgeCase struct {
	name  string
	story func(s *safetyScript)
	want  []string // sorted
}

// safetyEdgeCases are edge cases of the event stream the pairs do not
// reach: calls the World reports in an unusual order, lingering workers of
// purged records, runtime-only records that get a real pod, the end of the
// run.
var safetyEdgeCases = []safetyEdgeCase{
	{"a callback ends that never began", func(s *safetyScript) {
		s.create(sfA1)
		s.end("a", ops.SyncPod, ops.OK, false)
	}, []string{"S2"}},
	{"a callback ends while another runs", func(s *safetyScript) {
		sfRunning(s)
		s.end("a", ops.SyncTerminatingPod, ops.OK, false)
	}, []string{"S2"}},
	{"a callback for a UID that never had a record", func(s *safetyScript) {
		s.begin("z", ops.SyncPod, 1, 0)
	}, []string{"S2"}},
	{"killPodNow returns its kill inside the critical section", func(s *safetyScript) {
		s.create(sfA1)
		s.syncPod("a", 1)
		s.ids++
		s.emit(history.ClientCall, "client/1", s.ids, sfKill(sfA1, sfWithCh(3)), nil)
		s.emit(history.LockAcquired, "client/1", 0, nil, nil)
		s.state("a", "TR")
		s.emit(history.ClientReturn, "client/1", s.ids, nil, nil)
		s.emit(history.ClientCall, "client/1", s.ids+1, ops.KillPodNowDone{UID: "a", ID: 3}, nil)
		s.emit(history.LockReleasing, "client/1", 0, nil, nil)
		s.syncPod("a", 1) // taken after the kill
	}, []string{"S3"}},
	{"a completion fired outside a critical section, once terminated", func(s *safetyScript) {
		sfKilledAfterSync(s)
		s.update(sfKill(sfA1, sfWithCh(4)), nil)
		s.terminating("a", 1, 30, ops.OK)
		s.fire("a", 4)
	}, []string{"S14"}}, // open while terminated, then fired late: both judged
	{"a completion fired outside a critical section, too early", func(s *safetyScript) {
		s.create(sfA1)
		s.update(sfKill(sfA1, sfWithCh(5)), func() { s.state("a", "TR") })
		s.fire("a", 5)
	}, []string{"S14"}},
	{"an open completion is judged on its own pod's answers", func(s *safetyScript) {
		b := safetyPodAt("b", 1)
		s.create(b)
		s.syncPod("b", 1)
		s.killPod(b, ops.KillOptions{CompletionID: 7}) // open while b runs
		s.lifecycle("a")                               // a terminates: CouldHaveRunning false for a only
	}, nil},
	{"an open completion of a terminated pod, beside a running one", func(s *safetyScript) {
		b := safetyPodAt("b", 1)
		s.create(b)
		s.syncPod("b", 1)
		s.create(sfA1)
		s.syncPod("a", 1)
		s.update(ops.UpdatePod{Type: ops.Kill, Pod: b, Kill: ops.KillOptions{CompletionID: 7}}, func() {
			s.cancel("b")
			s.state("b", "TR") // the script does not fire 7 at D (no pendingKill)
		})
		s.terminating("b", 1, 30, ops.OK) // b terminated, its completion never fired; a still runs
	}, []string{"S14"}},
	{"a completion fired outside a critical section for an unknown UID", func(s *safetyScript) {
		s.update(ops.UpdatePod{Type: ops.Sync, Pod: ops.Pod{UID: "r"}, RuntimeOnly: true, Kill: sfWithCh(6)}, nil)
		s.fire("r", 6)
	}, nil},
	{"a runtime-only record that gets a real pod terminates as a pod", func(s *safetyScript) {
		s.update(sfRuntimeKill("a"), func() { s.state("a", "TR") })
		sfTakeAck(s, "a")
		s.begin("a", ops.SyncTerminatingRuntimePod, 0, 0)
		s.end("a", ops.SyncTerminatingRuntimePod, ops.Failed, false)
		s.worker("a", nil)
		s.update(sfUpdate(sfA1), nil)
		s.terminating("a", 1, 1, ops.OK)
		s.terminated("a", 1, ops.OK)
	}, nil},
	{"the old worker of a purged record leaves while the new one starts", func(s *safetyScript) {
		s.create(sfA1)
		s.syncKnown(nil, func() { s.state("a", "") }) // never started: purged
		s.create(sfA2)
		s.worker("a", nil) // the old worker leaving, or the new one taking
		s.killPod(sfA2, sfNoKill)
		s.syncPod("a", 2) // its take may be either section: cancelled, so accepted
	}, nil},
	{"a lingering worker does not hide an uncancelled SyncPod", func(s *safetyScript) {
		s.create(sfA1)
		s.syncKnown(nil, func() { s.state("a", "") })
		s.create(sfA2)
		s.worker("a", nil)
		s.update(sfKill(sfA2, sfNoKill), func() { s.state("a", "TR") })
		s.syncPod("a", 2)
	}, []string{"S3"}},
	{"a worker section without a record is a leaving worker", func(s *safetyScript) {
		s.create(sfA1)
		s.syncKnown(nil, func() { s.state("a", "") })
		s.worker("a", nil)
		s.create(sfA2)
		s.syncPod("a", 2)
	}, nil},
	{"a callback of the old incarnation overlaps the new one", func(s *safetyScript) {
		sfRunning(s)
		s.syncKnown(nil, func() { s.cancel("a"); s.state("a", "") })
		s.create(sfA2)
		s.syncPod("a", 2)
	}, []string{"S1", "S16", "S18"}},
	{"a SyncKnownPods result without a kept record, or with an unknown UID", func(s *safetyScript) {
		s.create(sfA1)
		s.call("client/0", ops.SyncKnownPods{Desired: []string{"a"}}, func() { s.view.synced = true },
			func() ops.Output { return ops.KnownPods{{UID: "z"}} })
	}, []string{"S18"}},
	{"a mirror pod of a static pod that took its update but has not begun", func(s *safetyScript) {
		s.create(safetyStaticPod("a", 1))
		s.manualMirror = true
		s.worker("a", nil)
		s.update(sfKill(safetyStaticPod("a", 1), sfNoKill), func() {
			s.state("a", "TR")
			s.view.mirror["web_default"] = true
		})
	}, nil},
	{"nothing is judged after Settled", func(s *safetyScript) {
		s.create(sfA1)
		s.emit(history.Settled, "driver", 0, nil, nil)
		s.begin("z", ops.SyncPod, 1, 0)
	}, nil},
}

func TestSafetyEdgeCases(t *testing.T) {
	for _, c := range safetyEdgeCases {
		t.Run(c.name, func(t *testing.T) {
			s := newSafetyScript()
			c.story(s)
			vs := s.finish()
			if got := safetyInvariants(vs); !slices.Equal(got, c.want) {
				t.Errorf("got violations of %v, want %v:%s", got, c.want, safetyDescribe(vs))
			}
		})
	}
}

// TestSafetyReportsOnce: a broken state that persists is reported at its
// first event only.
func TestSafetyReportsOnce(t *testing.T) {
	s := newSafetyScript()
	sfKilledAfterSync(s)
	for range 3 {
		s.cs("client/1", func() { s.state("a", "S") })
		s.cs("client/1", func() { s.state("a", "TR") })
	}
	vs := s.finish()
	if len(vs) != 1 || vs[0].Invariant != "S8" {
		t.Fatalf("got %d violations, want one S8:%s", len(vs), safetyDescribe(vs))
	}
	if want := "pod a (S): IsPodTerminationRequested went back from true to false at 1.5s (S8)"; vs[0].Message != want {
		t.Errorf("got message %q, want %q", vs[0].Message, want)
	}
}
