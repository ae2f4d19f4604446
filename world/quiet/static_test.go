package quiet

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/workers"
)

// noteStaticUpdate notes an UpdatePod of uid's static pod at version.
func noteStaticUpdate(q *Watch, uid types.UID, t workers.UpdateType, version int, kill bool) {
	o := workers.UpdatePodOptions{UpdateType: t, Pod: &v1.Pod{ObjectMeta: metav1.ObjectMeta{UID: uid}}}
	if kill {
		o.KillPodOptions = &workers.KillPodOptions{}
	}
	q.NoteUpdate(o, ops.UpdatePod{Pod: ops.Pod{UID: string(uid), Static: true, Version: version}})
}

// TestRetryRepeatsConditions: a static waiter's retry repeats, as far as
// its config and last update go, only while the pod is a static, steady
// pod and its last UpdatePod was a plain sync of its current version; each
// condition switches it off on its own.
func TestRetryRepeatsConditions(t *testing.T) {
	waiter := func() (*Watch, Config) {
		q := &Watch{}
		noteStaticUpdate(q, "b", workers.SyncPodSync, 1, false)
		return q, Config{InConfig: true, Steady: true, Static: true, Version: 1}
	}
	switchedOff(t, "a repeatable retry of b", waiter, func(q *Watch, c Config) bool { return q.retryRepeats("b", c) }, []condition{
		{"not static", func(_ *Watch, c *Config) { c.Static = false }},
		{"not steady", func(_ *Watch, c *Config) { c.Steady = false }},
		{"no update", func(q *Watch, _ *Config) { delete(q.updates, "b") }},
		{"a newer version", func(_ *Watch, c *Config) { c.Version++ }},
		{"last update a create", func(q *Watch, _ *Config) { noteStaticUpdate(q, "b", workers.SyncPodCreate, 1, false) }},
		{"last update with a kill", func(q *Watch, _ *Config) { noteStaticUpdate(q, "b", workers.SyncPodSync, 1, true) }},
		{"a runtime pod's kill since", func(q *Watch, _ *Config) {
			q.NoteUpdate(workers.UpdatePodOptions{UpdateType: workers.SyncPodKill}, ops.UpdatePod{Pod: ops.Pod{UID: "b"}})
		}},
	})
}

// TestWaitingIdleConditions: a record counts as a waiter idle with its
// retry's update pending only while it never started, no termination is
// requested, it is not working and has no call in flight, a sync update
// is pending, no kill waits, no restart is requested and its worker is
// there; each condition switches it off on its own.
func TestWaitingIdleConditions(t *testing.T) {
	waiter := waiting("b", "web_default")
	if !waitingIdle(waiter) {
		t.Fatalf("a refused waiter: got not waiting, want waiting")
	}
	for _, tt := range []struct {
		name string
		set  func(s *workers.PodStateSnapshot)
	}{
		{"started", func(s *workers.PodStateSnapshot) { s.Started = true }},
		{"termination requested", func(s *workers.PodStateSnapshot) { s.TerminationRequested = true }},
		{"working", func(s *workers.PodStateSnapshot) { s.Working = true }},
		{"in flight", func(s *workers.PodStateSnapshot) { s.InFlight = true }},
		{"nothing pending", func(s *workers.PodStateSnapshot) { s.HasPendingUpdate = false }},
		{"an update pending", func(s *workers.PodStateSnapshot) { s.PendingUpdateType = workers.SyncPodUpdate }},
		{"a kill waiting", func(s *workers.PodStateSnapshot) { s.PendingKills = 1 }},
		{"restart requested", func(s *workers.PodStateSnapshot) { s.RestartRequested = true }},
		{"no worker", func(s *workers.PodStateSnapshot) { s.HasWorker = false }},
	} {
		s := waiter
		tt.set(&s)
		if waitingIdle(s) {
			t.Errorf("%s: got waiting, want not", tt.name)
		}
	}
}

// TestRetriesRepeatHolder: waiters retry into a refusal only while their
// full name is held by another UID idle in S whose resync repeats; each
// way the holder falls short makes the retries count.
func TestRetriesRepeatHolder(t *testing.T) {
	for _, tt := range []struct {
		name string
		set  func(f *fakeWorld, idle map[types.UID]bool)
	}{
		{"no holder", func(f *fakeWorld, _ map[types.UID]bool) { f.holders["web_default"] = "" }},
		{"the waiter holds it", func(f *fakeWorld, _ map[types.UID]bool) { f.holders["web_default"] = "b" }},
		{"holder not idle", func(_ *fakeWorld, idle map[types.UID]bool) { idle["a"] = false }},
		{"holder does not run", func(f *fakeWorld, _ map[types.UID]bool) {
			c := f.configs["a"]
			c.Runs = false
			f.configs["a"] = c
		}},
	} {
		f := plainWorld()
		f.holders["web_default"] = "a"
		f.configs["a"] = Config{InConfig: true, Steady: true, Static: true, Version: 1, Runs: true}
		q := &Watch{world: f}
		q.NoteCallBegin("SyncPod", "a", 1)
		q.NoteCallEnd("SyncPod", "a", nil, false)
		idle := map[types.UID]bool{"a": true}
		waiters := map[types.UID]string{"b": "web_default", "c": "web_default"}
		if !q.retriesRepeat(waiters, idle) {
			t.Fatalf("waiters behind a running holder: got no repeat, want one")
		}
		if f.schedulingPoints != 1 {
			t.Errorf("got %d reads of the static-pod maps, want one per full name", f.schedulingPoints)
		}
		tt.set(f, idle)
		if q.retriesRepeat(waiters, idle) {
			t.Errorf("%s: got a repeat, want none", tt.name)
		}
	}
}
