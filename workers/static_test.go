package workers

import (
	"fmt"
	"slices"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// newBareWorkers returns pod workers over rt whose records a test builds by
// hand; no worker goroutine runs and the invariants are not checked.
func newBareWorkers(t *testing.T, rt Runtime) *PodWorkers {
	return New(Config{Runtime: newTestRuntime(t, rt), Syncer: newFakeSyncer(rt), Cache: newFakeCache()})
}

// Test_allowPodStart is SPEC §5, on hand-built records. Pinned: one
// goroutine, nothing to interleave.
func Test_allowPodStart(t *testing.T) {
	const fullname = "pod_ns"
	type rec struct {
		uid        types.UID
		requested  bool
		terminated bool
	}
	tests := []struct {
		name            string
		pod             *v1.Pod
		records         []rec
		started         types.UID
		waiting         []types.UID
		wantStart       bool
		wantEver        bool
		wantStarted     types.UID
		wantWaiting     []types.UID
		wantQueued      bool
		wantNoOwnRecord bool
	}{
		{name: "non-static", pod: newPod("a", "pod"), wantStart: true, wantEver: true, wantNoOwnRecord: true},
		{name: "same uid started", pod: newStaticPod("a", "pod"), records: []rec{{uid: "a"}},
			started: "a", wantStart: true, wantEver: true, wantStarted: "a"},
		{name: "other uid started", pod: newStaticPod("a", "pod"), records: []rec{{uid: "a"}, {uid: "b"}},
			started: "b", waiting: []types.UID{"a"}, wantEver: true, wantStarted: "b", wantWaiting: []types.UID{"a"}, wantQueued: true},
		{name: "first valid waiter", pod: newStaticPod("a", "pod"), records: []rec{{uid: "a"}, {uid: "b"}},
			waiting: []types.UID{"a", "b"}, wantStart: true, wantEver: true, wantStarted: "a", wantWaiting: []types.UID{"b"}},
		{name: "not first", pod: newStaticPod("b", "pod"), records: []rec{{uid: "a"}, {uid: "b"}},
			waiting: []types.UID{"a", "b"}, wantEver: true, wantWaiting: []types.UID{"a", "b"}, wantQueued: true},
		{name: "invalid waiters skipped and pruned", pod: newStaticPod("d", "pod"),
			records: []rec{{uid: "b", requested: true}, {uid: "c", requested: true, terminated: true}, {uid: "d"}},
			waiting: []types.UID{"a", "b", "c", "d"}, wantStart: true, wantEver: true, wantStarted: "d"},
		{name: "invalid prefix trimmed on refusal", pod: newStaticPod("d", "pod"),
			records: []rec{{uid: "b", requested: true}, {uid: "c"}, {uid: "d"}},
			waiting: []types.UID{"a", "b", "c", "d"}, wantEver: true, wantWaiting: []types.UID{"c", "d"}, wantQueued: true},
		{name: "no own record", pod: newStaticPod("a", "pod"), waiting: []types.UID{"a"},
			wantWaiting: []types.UID{"a"}, wantNoOwnRecord: true},
		{name: "own termination requested", pod: newStaticPod("a", "pod"), records: []rec{{uid: "a", requested: true}},
			waiting: []types.UID{"a"}, wantWaiting: []types.UID{"a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			forEachEnv(t, pinned, func(t *testing.T, e env) {
				w := newBareWorkers(t, e.Runtime())
				for _, r := range tt.records {
					w.records.set(r.uid, &podSyncStatus{uid: r.uid, fullname: fullname,
						terminationRequested: r.requested, terminated: r.terminated})
				}
				if tt.started != "" {
					w.startedStaticPodsByFullname[fullname] = tt.started
				}
				if tt.waiting != nil {
					w.waitingToStartStaticPodsByFullname[fullname] = slices.Clone(tt.waiting)
				}
				var canStart, canEver, queued bool
				e.Do("client", func() {
					canStart, canEver = w.allowPodStartLocked(tt.pod)
					queued = w.queue.(*Queue).Len() == 1
				})
				if canStart != tt.wantStart || canEver != tt.wantEver {
					t.Errorf("got (canStart %v, canEverStart %v), want (%v, %v)", canStart, canEver, tt.wantStart, tt.wantEver)
				}
				if got := w.startedStaticPodsByFullname[fullname]; got != tt.wantStarted {
					t.Errorf("got started %q, want %q", got, tt.wantStarted)
				}
				if got := w.waitingToStartStaticPodsByFullname[fullname]; !slices.Equal(got, tt.wantWaiting) {
					t.Errorf("got waiting %v, want %v", got, tt.wantWaiting)
				}
				if queued != tt.wantQueued {
					t.Errorf("got queued %v, want %v", queued, tt.wantQueued)
				}
			})
		})
	}
}

// staticCheck asserts the history, started holder and wait list of one step.
func (h *harness) staticCheck(step string, wantStarted types.UID, wantWaiting []types.UID) {
	h.t.Helper()
	got := ask(h, func() StaticPodSnapshot { return h.w.StaticPodState("stable_ns") })
	if got.Started != wantStarted || !slices.Equal(got.Waiting, wantWaiting) {
		h.t.Errorf("step %s: got started %q waiting %v, want %q %v", step, got.Started, got.Waiting, wantStarted, wantWaiting)
	}
}

func (h *harness) historyIs(step string, uid types.UID, want string) {
	h.t.Helper()
	if got := h.history(uid); got != want {
		h.t.Errorf("step %s: pod %s: got history %q, want %q", step, uid, got, want)
	}
}

// drainQueue empties the queue and returns the UIDs that were queued,
// sorted (their order depends on jitter).
func (h *harness) drainQueue() []types.UID {
	uids := ask(h, func() []types.UID { return h.queue.GetWork(h.rt.Now().Add(24 * time.Hour)) })
	slices.Sort(uids)
	return uids
}

// TestStaticPodExclusion is the 14 steps of SPEC §5 (B7, B8, B14): static
// pods sharing a full name start one at a time, in arrival order, skipping
// waiters that were killed before they started.
func TestStaticPodExclusion(t *testing.T) {
	runHarness(t, seeded, func(t *testing.T, h *harness) {
		pods := map[types.UID]*v1.Pod{"1": newPod("1", "stable")}
		for _, uid := range []types.UID{"2", "3", "4", "5", "6", "7", "8", "9"} {
			pods[uid] = newStaticPod(string(uid), "stable")
		}
		// 1. A non-static and a static pod with the same full name both run.
		h.create(pods["1"])
		h.create(pods["2"])
		h.historyIs("1", "1", "SyncPod(create)")
		h.historyIs("1", "2", "SyncPod(create)")
		h.staticCheck("1", "2", nil)
		// 2. 3 and 4 wait behind 2; all four are queued.
		h.create(pods["3"])
		h.create(pods["4"])
		h.historyIs("2", "3", "")
		h.historyIs("2", "4", "")
		h.staticCheck("2", "2", []types.UID{"3", "4"})
		if got, want := fmt.Sprint(h.drainQueue()), "[1 2 3 4]"; got != want {
			t.Errorf("step 2: got queue %s, want %s", got, want)
		}
		// 3. An update for 3 does not start it; only 3 is queued.
		h.modify(pods["3"])
		h.historyIs("3", "3", "")
		if got := fmt.Sprint(h.drainQueue()); got != "[3]" {
			t.Errorf("step 3: got queue %s, want [3]", got)
		}
		// 4. Killing 3 while it waits: terminated with no sync call; the
		// wait list is pruned lazily; nothing queued.
		h.kill(pods["3"])
		if s := h.state("3"); !s.Finished {
			t.Errorf("step 4: got %s, want finished", s)
		}
		h.historyIs("4", "3", "")
		h.staticCheck("4", "2", []types.UID{"3", "4"})
		if got := h.drainQueue(); len(got) != 0 {
			t.Errorf("step 4: got queue %v, want empty", got)
		}
		// 5. Killing 2: once finished, no static pod holds the name.
		h.kill(pods["2"])
		h.historyIs("5", "2", "SyncPod(create) SyncTerminatingPod(30) SyncTerminatedPod")
		h.staticCheck("5", "", []types.UID{"3", "4"})
		// 6. An update for 4 starts it (3 skipped).
		h.modify(pods["4"])
		h.historyIs("6", "4", "SyncPod(update)")
		h.staticCheck("6", "4", nil)
		// 7. SyncKnownPods with all four.
		got := h.syncKnown([]*v1.Pod{pods["1"], pods["2"], pods["3"], pods["4"]})
		want := KnownPods{
			{"1", PodWorkerSync{State: SyncPodWork, HasConfig: true}},
			{"2", PodWorkerSync{State: TerminatedPodWork, HasConfig: true, Static: true}},
			{"3", PodWorkerSync{State: TerminatedPodWork}},
			{"4", PodWorkerSync{State: SyncPodWork, HasConfig: true, Static: true}},
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("step 7: got %v, want %v", got, want)
		}
		if s := h.state("3"); !s.Finished || s.Working {
			t.Errorf("step 7: got %s, want 3 finished and idle", s)
		}
		// 8. Without 3, 3 is purged.
		h.syncKnown([]*v1.Pod{pods["1"], pods["2"], pods["4"]})
		if _, ok := h.podState("3"); ok {
			t.Errorf("step 8: got a record for 3, want it purged")
		}
		staticExclusionSteps9To14(h, pods)
	})
}

func staticExclusionSteps9To14(h *harness, pods map[types.UID]*v1.Pod) {
	t := h.t
	// 9. 5 waits behind 4; with 5's wake-ups held, kill 5 and add 6.
	h.create(pods["5"])
	h.rt.hold("5")
	h.kill(pods["5"])
	h.create(pods["6"])
	if s := h.state("5"); !s.TerminationRequested || s.Terminated {
		t.Errorf("step 9: got %s, want 5 termination requested, not terminated", s)
	}
	h.staticCheck("9", "4", []types.UID{"5", "6"})
	// 10. Kill 4 and update 6: 6 starts (5 skipped), synced once.
	h.kill(pods["4"])
	h.modify(pods["6"])
	h.historyIs("10", "6", "SyncPod(update)")
	h.staticCheck("10", "6", nil)
	// 11. Releasing 5: it exits as can-never-start, with no sync call.
	h.release("5")
	if s := h.state("5"); !s.Finished {
		t.Errorf("step 11: got %s, want 5 finished", s)
	}
	h.historyIs("11", "5", "")
	// 12. 7, 8, 9 wait; 6 is killed and re-created (restart requested); an
	// update for 8 is refused because 7 is first.
	h.create(pods["7"])
	h.create(pods["8"])
	h.create(pods["9"])
	h.kill(pods["6"])
	h.create(pods["6"])
	if s := h.state("6"); !s.RestartRequested {
		t.Errorf("step 12: got %s, want 6 restart requested", s)
	}
	h.modify(pods["8"])
	h.staticCheck("12", "", []types.UID{"7", "8", "9"})
	for _, uid := range []types.UID{"7", "8", "9"} {
		h.historyIs("12", uid, "")
	}
	// 13. Kill 7, update 8: 8 syncs once.
	h.kill(pods["7"])
	h.modify(pods["8"])
	h.historyIs("13", "8", "SyncPod(update)")
	// 14. SyncKnownPods([8]): 1 becomes a terminating orphan; every other
	// UID is purged (finished orphans, and 9 which never started).
	got := h.syncKnown([]*v1.Pod{pods["8"]})
	want := KnownPods{
		{"1", PodWorkerSync{State: TerminatingPodWork, Orphan: true, HasConfig: true}},
		{"8", PodWorkerSync{State: SyncPodWork, HasConfig: true, Static: true}},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("step 14: got %v, want %v", got, want)
	}
	var left []types.UID
	for _, s := range h.states() {
		left = append(left, s.UID)
	}
	if fmt.Sprint(left) != "[1 8]" {
		t.Errorf("step 14: got records %v, want [1 8]", left)
	}
	h.historyIs("14", "1", "SyncPod(create) SyncTerminatingPod(30) SyncTerminatedPod")
}

// TestIsPodForMirrorPodTerminatingByFullName: true exactly while the started
// static pod of the name is in TR or T.
func TestIsPodForMirrorPodTerminatingByFullName(t *testing.T) {
	runHarness(t, seeded, func(t *testing.T, h *harness) {
		pod := newStaticPod("a", "stable")
		const name = "stable_ns"
		steps := []struct {
			name string
			act  func()
			want bool
		}{
			{"unknown", func() {}, false},
			{"running", func() { h.create(pod) }, false},
			{"terminating", func() {
				h.syncer.block("SyncTerminatingPod", "a")
				h.kill(pod)
			}, true},
			{"terminated", func() {
				h.syncer.block("SyncTerminatedPod", "a")
				h.unblock("SyncTerminatingPod", "a")
			}, false},
			{"finished", func() { h.unblock("SyncTerminatedPod", "a") }, false},
		}
		for _, s := range steps {
			s.act()
			if got := ask(h, func() bool { return h.w.IsPodForMirrorPodTerminatingByFullName(name) }); got != s.want {
				t.Errorf("%s: got %v, want %v", s.name, got, s.want)
			}
		}
	})
}
