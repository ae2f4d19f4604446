package explain

import (
	"slices"
	"testing"

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
	d := newFacts()
	f := Finding{Check: "VK2", Message: "the provider's last status for pod a (pod-a), v1 Running, never reached the API, which holds v0 Running (VK2)"}
	accepted := Notify{Gen: 1, UID: "a", Version: 1, Accepted: 1}
	dropped := Notify{Gen: 2, UID: "a", Version: 1, Dropped: "poll timeout"}
	written := []StatusWrite{{Caller: "updatePodStatus", Version: 1, Seq: 2}}
	runEditCases(t, d, f, []editCase{
		{"VL: written, edited, the re-notification dropped", map[int]Notify{1: accepted, 2: dropped}, written, &Edit{StatusSeq: 2, NotifySeq: 1}, ClassNotificationDropped},
		{"no edit", map[int]Notify{1: accepted, 2: dropped}, written, nil, ""},
		{"the drop came before the edit", map[int]Notify{1: accepted, 2: dropped}, written, &Edit{StatusSeq: 2, NotifySeq: 2}, ""},
		{"nothing notified after the edit", map[int]Notify{1: accepted}, written, &Edit{StatusSeq: 2, NotifySeq: 1}, ""},
		{"a notification after the edit was taken", map[int]Notify{1: accepted, 2: dropped,
			3: {Gen: 2, UID: "a", Version: 1, Accepted: 3}}, written, &Edit{StatusSeq: 2, NotifySeq: 1}, ""},
		{"a status write after the edit", map[int]Notify{1: accepted, 2: dropped},
			append(slices.Clone(written), StatusWrite{Caller: "updatePodStatus", Version: 0, Seq: 3}), &Edit{StatusSeq: 2, NotifySeq: 1}, ""},
		{"the version never reached the API", map[int]Notify{1: accepted, 2: dropped},
			[]StatusWrite{{Caller: "updatePodStatus", Version: 0, Seq: 2}}, &Edit{StatusSeq: 2, NotifySeq: 1}, ""},
	})
}

// TestClassifyLostWithRunSinceEditNegative: VO after an edit (a guided
// vk-swarm run): the lost version reached the API, an outside edit
// replaced it after the pod's last effective status write, and every
// notification of the version made after the edit was taken by a
// generation stopped before writing it (or dropped), at least one taken.
func TestClassifyLostWithRunSinceEditNegative(t *testing.T) {
	d := newFacts()
	d.Gen = 3
	f := Finding{Check: "VK2", Message: "the provider's last status for pod a (pod-a), v1 Running, never reached the API, which holds v0 Running (VK2)"}
	first := Notify{Gen: 1, UID: "a", Version: 1, Accepted: 1}
	taken := Notify{Gen: 2, UID: "a", Version: 1, Accepted: 4}
	written := []StatusWrite{{Caller: "updatePodStatus", Version: 1, Seq: 2}}
	runEditCases(t, d, f, []editCase{
		{"VO: written, edited, the re-notification taken by a stopped generation", map[int]Notify{1: first, 2: taken}, written, &Edit{StatusSeq: 3, NotifySeq: 1}, ClassLostWithRun},
		{"and another dropped", map[int]Notify{1: first, 2: taken, 3: {Gen: 3, UID: "a", Version: 1, Dropped: "poll timeout"}}, written, &Edit{StatusSeq: 3, NotifySeq: 1}, ClassLostWithRun},
		{"no edit", map[int]Notify{1: first, 2: taken}, written, nil, ""},
		{"the notification came before the edit", map[int]Notify{1: first, 2: taken}, written, &Edit{StatusSeq: 3, NotifySeq: 2}, ""},
		{"taken by the last generation", map[int]Notify{1: first, 2: {Gen: 3, UID: "a", Version: 1, Accepted: 4}}, written, &Edit{StatusSeq: 3, NotifySeq: 1}, ""},
		{"another taken by the last generation", map[int]Notify{1: first, 2: taken, 3: {Gen: 3, UID: "a", Version: 1, Accepted: 5}}, written, &Edit{StatusSeq: 3, NotifySeq: 1}, ""},
		{"a status write after the edit", map[int]Notify{1: first, 2: taken},
			append(slices.Clone(written), StatusWrite{Caller: "updatePodStatus", Version: 0, Seq: 5}), &Edit{StatusSeq: 3, NotifySeq: 1}, ""},
		// (the first notification taken by the last generation, so that
		// VO's own clause, for a version never written, does not hold)
		{"the version never reached the API", map[int]Notify{1: {Gen: 3, UID: "a", Version: 1, Accepted: 1}, 2: taken},
			[]StatusWrite{{Caller: "updatePodStatus", Version: 0, Seq: 2}}, &Edit{StatusSeq: 3, NotifySeq: 1}, ""},
	})
}

// TestClassifyEntryClearedNegative: VP's predicate names a status lost to
// the delete event of an older UID of the same name, and refuses the look-
// alikes: the delete was of the pod itself, came before the notification,
// ran in another generation or under another name; the version was written;
// a notification of it came after the delete; one was dropped (VL's path).
func TestClassifyEntryClearedNegative(t *testing.T) {
	d := newFacts()
	f := Finding{Check: "VK2", Message: "the provider's last status for pod d (web), v1 Running, never reached the API, which holds v0 Pending (VK2)"}
	accepted := Notify{Gen: 1, UID: "d", Version: 1, Accepted: 1}
	oldDelete := DeleteEvent{Gen: 1, Key: "default/web", UID: "c", Seq: 2}
	with := func(e func(*DeleteEvent)) []DeleteEvent {
		x := oldDelete
		e(&x)
		return []DeleteEvent{x}
	}
	cases := []struct {
		name     string
		notifies map[int]Notify
		deletes  []DeleteEvent
		writes   []StatusWrite
		want     string
	}{
		{"VP: stored, then the old UID's delete", map[int]Notify{1: accepted}, []DeleteEvent{oldDelete}, nil, ClassEntryClearedByOldUID},
		{"the delete was the pod's own", map[int]Notify{1: accepted}, with(func(e *DeleteEvent) { e.UID = "d" }), nil, ""},
		{"the delete came first", map[int]Notify{1: {Gen: 1, UID: "d", Version: 1, Accepted: 3}}, []DeleteEvent{oldDelete}, nil, ""},
		{"another generation's delete", map[int]Notify{1: accepted}, with(func(e *DeleteEvent) { e.Gen = 2 }), nil, ""},
		{"another name's delete", map[int]Notify{1: accepted}, with(func(e *DeleteEvent) { e.Key = "default/db" }), nil, ""},
		{"no delete", map[int]Notify{1: accepted}, nil, nil, ""},
		{"the version was written", map[int]Notify{1: accepted}, []DeleteEvent{oldDelete},
			[]StatusWrite{{Caller: "updatePodStatus", Version: 1, Seq: 3}}, ""},
		{"notified again after the delete", map[int]Notify{1: accepted, 2: {Gen: 1, UID: "d", Version: 1, Accepted: 4}},
			[]DeleteEvent{oldDelete}, nil, ""},
		{"a notification of it dropped", map[int]Notify{1: accepted, 2: {Gen: 1, UID: "d", Version: 1, Dropped: "poll timeout"}},
			[]DeleteEvent{oldDelete}, nil, ""},
	}
	for _, c := range cases {
		d.Notifies, d.DeleteEvents, d.StatusWrites["d"] = c.notifies, c.deletes, c.writes
		if got := d.classify(f); got != c.want {
			t.Errorf("%s: classified %q, want %q", c.name, got, c.want)
		}
	}
}

// editCase is one look-alike of a status lost after an outside edit of
// pod a: the notifications, a's effective status writes, the edit (nil:
// none) and the class wanted.
type editCase struct {
	name     string
	notifies map[int]Notify
	writes   []StatusWrite
	edit     *Edit
	want     string
}

// runEditCases classifies f in each case's world.
func runEditCases(t *testing.T, d *Facts, f Finding, cases []editCase) {
	t.Helper()
	for _, c := range cases {
		d.Notifies, d.StatusWrites["a"], d.Edits = c.notifies, c.writes, map[types.UID]Edit{}
		if c.edit != nil {
			d.Edits["a"] = *c.edit
		}
		if got := d.classify(f); got != c.want {
			t.Errorf("%s: classified %q, want %q", c.name, got, c.want)
		}
	}
}
