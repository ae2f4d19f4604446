package workers

import (
	"testing"
	"time"
)

// TestRecordUpdatesAreCopies: the pending and the active update live in
// the record (setPending, mergeLastUpdate) and are overwritten there, so
// whoever keeps one must hold a copy: a consumed pending update (as
// startPodSyncLocked takes it) keeps its options when the next is queued,
// and a replay of the active update (as requeueLastPodUpdateLocked queues
// it) keeps them when a later merge changes the active one.
func TestRecordUpdatesAreCopies(t *testing.T) {
	a, b, c := newPod("a", "pod-a"), newPod("a", "pod-a"), newPod("a", "pod-a")
	s := &podSyncStatus{uid: "a"}
	first := UpdatePodOptions{UpdateType: SyncPodCreate, Pod: a, StartTime: time.Unix(1, 0)}
	s.setPending(first)
	consumed := *s.pendingUpdate
	s.setPending(UpdatePodOptions{UpdateType: SyncPodUpdate, Pod: b})
	if consumed != first || s.pendingUpdate.Pod != b {
		t.Errorf("consumed %+v, want %+v; pending pod %p, want %p", consumed, first, s.pendingUpdate.Pod, b)
	}
	s.pendingUpdate = nil
	s.mergeLastUpdate(first)
	s.setPending(*s.activeUpdate) // a replay
	s.mergeLastUpdate(UpdatePodOptions{UpdateType: SyncPodUpdate, Pod: c})
	if s.pendingUpdate.Pod != a || s.activeUpdate.Pod != c {
		t.Errorf("replay's pod %p, want %p; active pod %p, want %p", s.pendingUpdate.Pod, a, s.activeUpdate.Pod, c)
	}
	if s.pendingUpdate == s.activeUpdate {
		t.Errorf("the pending and the active update share their options")
	}
}
