package realvk

import (
	"github.com/podsim/podsim/realvk/explain"
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
		accepted := explain.Notify{Gen: 1, UID: "a", Version: 1, Accepted: 1}
		dropped := explain.Notify{Gen: 2, UID: "a", Version: 1, Dropped: "poll timeout"}
		written := []explain.StatusWrite{{Caller: "updatePodStatus", Version: 1, Seq: 2}}
		runEditCases(t, d, f, []editCase{
			{"VL: written, edited, the re-notification dropped", map[int]explain.Notify{1: accepted, 2: dropped}, written, &explain.Edit{StatusSeq: 2, NotifySeq: 1}, explain.ClassNotificationDropped},
			{"no edit", map[int]explain.Notify{1: accepted, 2: dropped}, written, nil, ""},
			{"the drop came before the edit", map[int]explain.Notify{1: accepted, 2: dropped}, written, &explain.Edit{StatusSeq: 2, NotifySeq: 2}, ""},
			{"nothing notified after the edit", map[int]explain.Notify{1: accepted}, written, &explain.Edit{StatusSeq: 2, NotifySeq: 1}, ""},
			{"a notification after the edit was taken", map[int]explain.Notify{1: accepted, 2: dropped,
				3: {Gen: 2, UID: "a", Version: 1, Accepted: 3}}, written, &explain.Edit{StatusSeq: 2, NotifySeq: 1}, ""},
			{"a status write after the edit", map[int]explain.Notify{1: accepted, 2: dropped},
				append(slices.Clone(written), explain.StatusWrite{Caller: "updatePodStatus", Version: 0, Seq: 3}), &explain.Edit{StatusSeq: 2, NotifySeq: 1}, ""},
			{"the version never reached the API", map[int]explain.Notify{1: accepted, 2: dropped},
				[]explain.StatusWrite{{Caller: "updatePodStatus", Version: 0, Seq: 2}}, &explain.Edit{StatusSeq: 2, NotifySeq: 1}, ""},
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
		first := explain.Notify{Gen: 1, UID: "a", Version: 1, Accepted: 1}
		taken := explain.Notify{Gen: 2, UID: "a", Version: 1, Accepted: 4}
		written := []explain.StatusWrite{{Caller: "updatePodStatus", Version: 1, Seq: 2}}
		runEditCases(t, d, f, []editCase{
			{"VO: written, edited, the re-notification taken by a stopped generation", map[int]explain.Notify{1: first, 2: taken}, written, &explain.Edit{StatusSeq: 3, NotifySeq: 1}, explain.ClassLostWithRun},
			{"and another dropped", map[int]explain.Notify{1: first, 2: taken, 3: {Gen: 3, UID: "a", Version: 1, Dropped: "poll timeout"}}, written, &explain.Edit{StatusSeq: 3, NotifySeq: 1}, explain.ClassLostWithRun},
			{"no edit", map[int]explain.Notify{1: first, 2: taken}, written, nil, ""},
			{"the notification came before the edit", map[int]explain.Notify{1: first, 2: taken}, written, &explain.Edit{StatusSeq: 3, NotifySeq: 2}, ""},
			{"taken by the last generation", map[int]explain.Notify{1: first, 2: {Gen: 3, UID: "a", Version: 1, Accepted: 4}}, written, &explain.Edit{StatusSeq: 3, NotifySeq: 1}, ""},
			{"another taken by the last generation", map[int]explain.Notify{1: first, 2: taken, 3: {Gen: 3, UID: "a", Version: 1, Accepted: 5}}, written, &explain.Edit{StatusSeq: 3, NotifySeq: 1}, ""},
			{"a status write after the edit", map[int]explain.Notify{1: first, 2: taken},
				append(slices.Clone(written), explain.StatusWrite{Caller: "updatePodStatus", Version: 0, Seq: 5}), &explain.Edit{StatusSeq: 3, NotifySeq: 1}, ""},
			// (the first notification taken by the last generation, so that
			// VO's own clause, for a version never written, does not hold)
			{"the version never reached the API", map[int]explain.Notify{1: {Gen: 3, UID: "a", Version: 1, Accepted: 1}, 2: taken},
				[]explain.StatusWrite{{Caller: "updatePodStatus", Version: 0, Seq: 2}}, &explain.Edit{StatusSeq: 3, NotifySeq: 1}, ""},
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
		accepted := explain.Notify{Gen: 1, UID: "d", Version: 1, Accepted: 1}
		oldDelete := explain.DeleteEvent{Gen: 1, Key: "default/web", UID: "c", Seq: 2}
		with := func(e func(*explain.DeleteEvent)) []explain.DeleteEvent {
			x := oldDelete
			e(&x)
			return []explain.DeleteEvent{x}
		}
		cases := []struct {
			name     string
			notifies map[int]explain.Notify
			deletes  []explain.DeleteEvent
			writes   []explain.StatusWrite
			want     string
		}{
			{"VP: stored, then the old UID's delete", map[int]explain.Notify{1: accepted}, []explain.DeleteEvent{oldDelete}, nil, explain.ClassEntryClearedByOldUID},
			{"the delete was the pod's own", map[int]explain.Notify{1: accepted}, with(func(e *explain.DeleteEvent) { e.UID = "d" }), nil, ""},
			{"the delete came first", map[int]explain.Notify{1: {Gen: 1, UID: "d", Version: 1, Accepted: 3}}, []explain.DeleteEvent{oldDelete}, nil, ""},
			{"another generation's delete", map[int]explain.Notify{1: accepted}, with(func(e *explain.DeleteEvent) { e.Gen = 2 }), nil, ""},
			{"another name's delete", map[int]explain.Notify{1: accepted}, with(func(e *explain.DeleteEvent) { e.Key = "default/db" }), nil, ""},
			{"no delete", map[int]explain.Notify{1: accepted}, nil, nil, ""},
			{"the version was written", map[int]explain.Notify{1: accepted}, []explain.DeleteEvent{oldDelete},
				[]explain.StatusWrite{{Caller: "updatePodStatus", Version: 1, Seq: 3}}, ""},
			{"notified again after the delete", map[int]explain.Notify{1: accepted, 2: {Gen: 1, UID: "d", Version: 1, Accepted: 4}},
				[]explain.DeleteEvent{oldDelete}, nil, ""},
			{"a notification of it dropped", map[int]explain.Notify{1: accepted, 2: {Gen: 1, UID: "d", Version: 1, Dropped: "poll timeout"}},
				[]explain.DeleteEvent{oldDelete}, nil, ""},
		}
		for _, c := range cases {
			d.W.ev.Notifies, d.W.ev.DeleteEvents, d.W.ev.StatusWrites["d"] = c.notifies, c.deletes, c.writes
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
	notifies map[int]explain.Notify
	writes   []explain.StatusWrite
	edit     *explain.Edit
	want     string
}

// runEditCases classifies f in each case's world.
func runEditCases(t *testing.T, d *Driver, f Finding, cases []editCase) {
	t.Helper()
	for _, c := range cases {
		d.W.ev.Notifies, d.W.ev.StatusWrites["a"], d.W.ev.Edits = c.notifies, c.writes, map[types.UID]explain.Edit{}
		if c.edit != nil {
			d.W.ev.Edits["a"] = *c.edit
		}
		if got := d.classify(f); got != c.want {
			t.Errorf("%s: classified %q, want %q", c.name, got, c.want)
		}
	}
}
