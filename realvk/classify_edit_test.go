package realvk

import (
	"slices"
	"testing"
	"testing/synctest"

	"k8s.io/apimachinery/pkg/types"
)

// Negative tests of the status losses that follow an outside edit (VL,
// VO) and of VP: each predicate rejects the look-alikes that lack a link
// of its causal chain.

// TestClassifyDroppedSinceEditNegative: VL after an edit needs the lost
// version to have reached the API, an outside edit after the pod's last
// effective status write, and every notification of the version made
// after the edit dropped (vk-swarm seed 22,344), at least one.
func TestClassifyDroppedSinceEditNegative(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := NewDriver()
		f := Finding{Check: "VK2", Message: "the provider's last status for pod a (pod-a), v1 Running, never reached the API, which holds v0 Running (VK2)"}
		accepted := notifyRecord{gen: 1, uid: "a", version: 1, accepted: 1}
		dropped := notifyRecord{gen: 2, uid: "a", version: 1, dropped: "poll timeout"}
		written := []statusWrite{{caller: "updatePodStatus", version: 1, seq: 2}}
		runEditCases(t, d, f, []editCase{
			{"VL: written, edited, the re-notification dropped", map[int]notifyRecord{1: accepted, 2: dropped}, written, &editAt{2, 1}, ClassNotificationDropped},
			{"no edit", map[int]notifyRecord{1: accepted, 2: dropped}, written, nil, ""},
			{"the drop came before the edit", map[int]notifyRecord{1: accepted, 2: dropped}, written, &editAt{2, 2}, ""},
			{"nothing notified after the edit", map[int]notifyRecord{1: accepted}, written, &editAt{2, 1}, ""},
			{"a notification after the edit was taken", map[int]notifyRecord{1: accepted, 2: dropped,
				3: {gen: 2, uid: "a", version: 1, accepted: 3}}, written, &editAt{2, 1}, ""},
			{"a status write after the edit", map[int]notifyRecord{1: accepted, 2: dropped},
				append(slices.Clone(written), statusWrite{caller: "updatePodStatus", version: 0, seq: 3}), &editAt{2, 1}, ""},
			{"the version never reached the API", map[int]notifyRecord{1: accepted, 2: dropped},
				[]statusWrite{{caller: "updatePodStatus", version: 0, seq: 2}}, &editAt{2, 1}, ""},
		})
	})
}

// TestClassifyLostWithRunSinceEditNegative: VO after an edit (a guided
// vk-swarm run): the lost version reached the API, an outside edit
// replaced it after the pod's last effective status write, and every
// notification of the version made after the edit was taken by a
// generation stopped before writing it (or dropped), at least one taken.
func TestClassifyLostWithRunSinceEditNegative(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := NewDriver()
		d.W.gen = 3
		f := Finding{Check: "VK2", Message: "the provider's last status for pod a (pod-a), v1 Running, never reached the API, which holds v0 Running (VK2)"}
		first := notifyRecord{gen: 1, uid: "a", version: 1, accepted: 1}
		taken := notifyRecord{gen: 2, uid: "a", version: 1, accepted: 4}
		written := []statusWrite{{caller: "updatePodStatus", version: 1, seq: 2}}
		runEditCases(t, d, f, []editCase{
			{"VO: written, edited, the re-notification taken by a stopped generation", map[int]notifyRecord{1: first, 2: taken}, written, &editAt{3, 1}, ClassLostWithRun},
			{"and another dropped", map[int]notifyRecord{1: first, 2: taken, 3: {gen: 3, uid: "a", version: 1, dropped: "poll timeout"}}, written, &editAt{3, 1}, ClassLostWithRun},
			{"no edit", map[int]notifyRecord{1: first, 2: taken}, written, nil, ""},
			{"the notification came before the edit", map[int]notifyRecord{1: first, 2: taken}, written, &editAt{3, 2}, ""},
			{"taken by the last generation", map[int]notifyRecord{1: first, 2: {gen: 3, uid: "a", version: 1, accepted: 4}}, written, &editAt{3, 1}, ""},
			{"another taken by the last generation", map[int]notifyRecord{1: first, 2: taken, 3: {gen: 3, uid: "a", version: 1, accepted: 5}}, written, &editAt{3, 1}, ""},
			{"a status write after the edit", map[int]notifyRecord{1: first, 2: taken},
				append(slices.Clone(written), statusWrite{caller: "updatePodStatus", version: 0, seq: 5}), &editAt{3, 1}, ""},
			// (the first notification taken by the last generation, so that
			// VO's own clause, for a version never written, does not hold)
			{"the version never reached the API", map[int]notifyRecord{1: {gen: 3, uid: "a", version: 1, accepted: 1}, 2: taken},
				[]statusWrite{{caller: "updatePodStatus", version: 0, seq: 2}}, &editAt{3, 1}, ""},
		})
	})
}

// TestClassifyEntryClearedNegative: VP's predicate names a status lost to
// the delete event of an older UID of the same name, and refuses the look-
// alikes: the delete was of the pod itself, came before the notification,
// ran in another generation or under another name; the version was written;
// a notification of it came after the delete; one was dropped (VL's path).
func TestClassifyEntryClearedNegative(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := NewDriver()
		f := Finding{Check: "VK2", Message: "the provider's last status for pod d (web), v1 Running, never reached the API, which holds v0 Pending (VK2)"}
		accepted := notifyRecord{gen: 1, uid: "d", version: 1, accepted: 1}
		oldDelete := deleteEvent{gen: 1, key: "default/web", uid: "c", seq: 2}
		with := func(e func(*deleteEvent)) []deleteEvent { x := oldDelete; e(&x); return []deleteEvent{x} }
		cases := []struct {
			name     string
			notifies map[int]notifyRecord
			deletes  []deleteEvent
			writes   []statusWrite
			want     string
		}{
			{"VP: stored, then the old UID's delete", map[int]notifyRecord{1: accepted}, []deleteEvent{oldDelete}, nil, ClassEntryClearedByOldUID},
			{"the delete was the pod's own", map[int]notifyRecord{1: accepted}, with(func(e *deleteEvent) { e.uid = "d" }), nil, ""},
			{"the delete came first", map[int]notifyRecord{1: {gen: 1, uid: "d", version: 1, accepted: 3}}, []deleteEvent{oldDelete}, nil, ""},
			{"another generation's delete", map[int]notifyRecord{1: accepted}, with(func(e *deleteEvent) { e.gen = 2 }), nil, ""},
			{"another name's delete", map[int]notifyRecord{1: accepted}, with(func(e *deleteEvent) { e.key = "default/db" }), nil, ""},
			{"no delete", map[int]notifyRecord{1: accepted}, nil, nil, ""},
			{"the version was written", map[int]notifyRecord{1: accepted}, []deleteEvent{oldDelete},
				[]statusWrite{{caller: "updatePodStatus", version: 1, seq: 3}}, ""},
			{"notified again after the delete", map[int]notifyRecord{1: accepted, 2: {gen: 1, uid: "d", version: 1, accepted: 4}},
				[]deleteEvent{oldDelete}, nil, ""},
			{"a notification of it dropped", map[int]notifyRecord{1: accepted, 2: {gen: 1, uid: "d", version: 1, dropped: "poll timeout"}},
				[]deleteEvent{oldDelete}, nil, ""},
		}
		for _, c := range cases {
			d.W.notifies, d.W.deleteEvents, d.W.statusWrites["d"] = c.notifies, c.deletes, c.writes
			if got := d.classify(f); got != c.want {
				t.Errorf("%s: classified %q, want %q", c.name, got, c.want)
			}
		}
	})
}

// editCase is one look-alike of a status lost after an outside edit of
// pod a: the notifications, a's effective status writes, the edit (nil:
// none) and the class wanted.
type editCase struct {
	name     string
	notifies map[int]notifyRecord
	writes   []statusWrite
	edit     *editAt
	want     string
}

// runEditCases classifies f in each case's world.
func runEditCases(t *testing.T, d *Driver, f Finding, cases []editCase) {
	t.Helper()
	for _, c := range cases {
		d.W.notifies, d.W.statusWrites["a"], d.W.edits = c.notifies, c.writes, map[types.UID]editAt{}
		if c.edit != nil {
			d.W.edits["a"] = *c.edit
		}
		if got := d.classify(f); got != c.want {
			t.Errorf("%s: classified %q, want %q", c.name, got, c.want)
		}
	}
}
