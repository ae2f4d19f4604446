package nearmiss

import (
	"slices"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/podsim/podsim/history"
)

// at is ev at virtual time d.
func at(d time.Duration, ev history.Event) history.Event {
	ev.At = d
	return ev
}

func trackVK(evs ...history.Event) []string {
	var k keys
	t := NewVK(&k)
	for _, ev := range evs {
		t.Observe(&ev)
	}
	slices.Sort(k)
	return k
}

var (
	created   = note(history.VKCreated{UID: "a", Name: "p"})
	pcreated  = note(history.VKProviderCreated{UID: "a"})
	running   = note(history.VKNotified{UID: "a", Phase: v1.PodRunning, Version: 1})
	landed    = note(history.VKStatusWritten{UID: "a", Phase: v1.PodRunning, Version: 1})
	succeeded = note(history.VKNotified{UID: "a", Phase: v1.PodSucceeded, Version: 2})
)

func deleteAt(d time.Duration, grace int64) history.Event {
	return at(d, note(history.VKDeleteRequested{UID: "a", Grace: grace, By: "client"}))
}

func removedAt(d time.Duration, by string) history.Event {
	return at(d, note(history.VKRemoved{UID: "a", By: by, Precondition: "a"}))
}

// TestVKRemovedOnSoleReason: the controller's removal of a deleted pod
// when only one of VK3's reasons held is a near miss naming it; a removal
// with two reasons, by a client, without the pod's UID precondition (VK1's
// violation) or of a pod nobody deleted (VK3's), is none.
func TestVKRemovedOnSoleReason(t *testing.T) {
	live := []history.Event{created, pcreated, running, landed}
	with := func(evs ...history.Event) []history.Event { return append(slices.Clone(live), evs...) }
	key := func(reason string) string { return "vk/VK3/removed-on-sole/" + reason }
	expect(t, "terminal", trackVK(with(deleteAt(0, 30), succeeded, note(history.VKStatusWritten{UID: "a", Phase: v1.PodRunning,
		Version: 2}), removedAt(time.Second, "controller"))...), key("terminal"))
	expect(t, "grace at expiry", trackVK(with(deleteAt(time.Second, 30), removedAt(31*time.Second, "controller"))...),
		key("grace-at-expiry"))
	expect(t, "grace expired", trackVK(with(deleteAt(time.Second, 30), removedAt(40*time.Second, "controller"))...),
		key("grace-expired"))
	expect(t, "not running", trackVK(created, pcreated, deleteAt(0, 30), removedAt(time.Second, "controller")), key("not-running"))

	expect(t, "two reasons", trackVK(with(deleteAt(0, 30), note(history.VKProviderDeleted{UID: "a", ByProvider: true}), succeeded,
		note(history.VKStatusWritten{UID: "a", Phase: v1.PodSucceeded, Version: 2}), removedAt(time.Second, "controller"))...))
	expect(t, "by a client", trackVK(with(deleteAt(0, 30), removedAt(40*time.Second, "client"))...))
	expect(t, "no precondition", trackVK(with(deleteAt(0, 30), at(40*time.Second, note(history.VKRemoved{UID: "a",
		By: "controller"})))...))
	expect(t, "nobody deleted it", trackVK(with(removedAt(time.Second, "controller"))...))
}

// TestVKBehind: a pod's API object removed, or the controller cancelled,
// while the provider's newest status had not reached the API, is a near
// miss of VK2; with the status landed, an edit of it standing, or no
// notification at all, none.
func TestVKBehind(t *testing.T) {
	cancelled := note(history.VKCancelled{Epoch: 1})
	expect(t, "removed behind", trackVK(created, running, deleteAt(0, 0), removedAt(0, "client")), "vk/VK2/removed-behind/client")
	expect(t, "behind at a cancel", trackVK(created, running, cancelled), "vk/VK2/behind-at-cancel")
	expect(t, "an older status landed", trackVK(created, running, landed, succeeded, cancelled), "vk/VK2/behind-at-cancel")

	expect(t, "landed", trackVK(created, running, landed, cancelled))
	expect(t, "never notified", trackVK(created, cancelled))
	expect(t, "an edit stands", trackVK(created, running, landed, note(history.VKEdited{UID: "a"}), cancelled))
	expect(t, "removed before the cancel", trackVK(created, running, landed, succeeded, deleteAt(0, 0), removedAt(0, "client"),
		cancelled), "vk/VK2/removed-behind/client")
}

// TestVKProviderDeleteOfALiveObject: the controller deleting a pod from
// the provider while its API object is still there, on a deletion
// timestamp (in its instant or later) or the provider's own deletion, is a
// near miss of VK5; the provider's own deletion, a pod whose object is
// gone, or one nobody deleted (VK5's violation), none.
func TestVKProviderDeleteOfALiveObject(t *testing.T) {
	pdeleted := func(d time.Duration, byProvider bool) history.Event {
		return at(d, note(history.VKProviderDeleted{UID: "a", ByProvider: byProvider}))
	}
	key := "vk/VK5/pdeleted-live/"
	expect(t, "deleting", trackVK(created, pcreated, deleteAt(0, 30), pdeleted(time.Second, false)), key+"deleting")
	expect(t, "same instant", trackVK(created, pcreated, deleteAt(time.Second, 30), pdeleted(time.Second, false)),
		key+"deleting/same-instant")
	expect(t, "provider deleting", trackVK(created, pcreated, note(history.VKNotified{UID: "a", Phase: v1.PodRunning, Version: 1,
		Deleting: true}), pdeleted(time.Second, false)), key+"provider-deleting")

	expect(t, "by the provider", trackVK(created, pcreated, deleteAt(0, 30), pdeleted(time.Second, true)))
	expect(t, "object gone", trackVK(created, pcreated, deleteAt(0, 0), removedAt(0, "client"), pdeleted(time.Second, false)))
	expect(t, "nobody deleted it", trackVK(created, pcreated, pdeleted(time.Second, false)))
}

// TestVKDeletingAtStart: a controller start while a pod's API object has
// a deletion timestamp is a near miss of VK4, by the start and the pod's
// state in the provider; a start with no such pod, or after the object
// left, none.
func TestVKDeletingAtStart(t *testing.T) {
	start := func(epoch int) history.Event { return note(history.VKStarted{Epoch: epoch}) }
	key := "vk/VK4/deleting-at-start/"
	expect(t, "first", trackVK(created, pcreated, deleteAt(0, 30), start(1)), key+"first/running")
	expect(t, "restart, terminal", trackVK(created, pcreated, start(1), deleteAt(0, 30), succeeded, start(2)), key+"restart/terminal")
	expect(t, "gone", trackVK(created, pcreated, deleteAt(0, 30), note(history.VKProviderDeleted{UID: "a", ByProvider: true}), start(1)),
		key+"first/gone")

	expect(t, "not deleting", trackVK(created, pcreated, start(1)))
	expect(t, "removed", trackVK(created, deleteAt(0, 0), removedAt(0, "client"), start(1)))
}
