package explain

import (
	"maps"
	"slices"

	"github.com/podsim/podsim/realvk/callgate"
	"k8s.io/apimachinery/pkg/types"
)

// The predicates of the classes written from the 500-seed sweep's last
// unexplained findings (VI–VO, and VD for a pod that left the API); the
// classifier (classify.go) calls them; the driver holds the world's lock
// while the classifier runs, so the world's maps do not change under it.

// danglingRuns: the generations that ran deleteDanglingPods, and those
// whose GetPods or DeletePod of key failed.
func (ev *Facts) danglingRuns(key string) (ran, failed map[int]bool) {
	ran, failed = map[int]bool{}, map[int]bool{}
	for _, c := range ev.DanglingCalls {
		if c.Op == "provider.GetPods" {
			ran[c.Gen] = true
		}
		if c.Outcome != callgate.OK && (c.Op == "provider.GetPods" || c.Key == key) {
			failed[c.Gen] = true
		}
	}
	return ran, failed
}

// failedIn: every generation after gen that ran the cleanup failed it.
func failedIn(ran, failed map[int]bool, gen int) bool {
	for g := range ran {
		if g > gen && !failed[g] {
			return false
		}
	}
	return true
}

// danglingAfterRestart (VD, for a pod that had an API object): U left
// the API in generation gR (or, if gR's informer had not listed yet, so
// that gR never saw U and only its deleteDanglingPods could clean it up,
// in gR−1's: either reading will do) and the controller was restarted
// after it;
// the informer's cleanup of key, if one was made, was not the last
// generation's and did not end with a not-found (that is VI); at least
// one generation after gR ran deleteDanglingPods, and each of them failed
// its GetPods, or failed its DeletePod of key, or got a list without key,
// or listed key while its lister held another UID under the name (the
// sweep compares names only).
func (ev *Facts) danglingAfterRestart(key string, uid types.UID) bool {
	gR, ok := ev.RemovedGen[uid]
	if !ok {
		return false
	}
	if ev.danglingSince(key, uid, gR) {
		return true
	}
	from, listed := ev.WatchFrom[gR]
	return (!listed || ev.RemovedAt[uid] < from) && ev.danglingSince(key, uid, gR-1)
}

// danglingSince is danglingAfterRestart for a pod that left the API in
// generation gR.
func (ev *Facts) danglingSince(key string, uid types.UID, gR int) bool {
	if gR >= ev.Gen {
		return false
	}
	if c, ok := ev.LastCleanup[key]; ok && (c.Gen >= ev.Gen || c.Outcome == callgate.Missing) {
		return false
	}
	ran, failed := ev.danglingRuns(key)
	later := 0
	for g := range ran {
		if g <= gR {
			continue
		}
		later++
		if failed[g] || !slices.Contains(slices.Collect(maps.Values(ev.PodsGiven[g])), key) {
			continue
		}
		// g listed the pod and did not fail: explained only if its lister
		// held another UID under the name, which the sweep's by-name
		// check takes for the provider's pod (VA's comparison).
		if held := ev.SweepHeld[g][key]; held == "" || held == uid {
			return false
		}
	}
	return later > 0
}

// cleanupTrustedMissing (VI): the last provider call of
// syncPodFromKubernetesHandler for key was a GetPod answered not-found
// while the provider held uid under key and the API had no object of
// that name (the handler then returns nil: nothing retries), and every
// later generation that ran deleteDanglingPods failed its GetPods or its
// DeletePod of key.
func (ev *Facts) cleanupTrustedMissing(key string, uid types.UID) bool {
	c, ok := ev.LastCleanup[key]
	if !ok || c.Op != "provider.GetPod" || c.Outcome != callgate.Missing || c.ProviderUID != uid || c.APIHasName {
		return false
	}
	ran, failed := ev.danglingRuns(key)
	return failedIn(ran, failed, c.Gen)
}

// statusByNameLeft (VJ): the items left are all in the status queue, and
// as many names' last status handler run, in the last controller
// generation (whose queues were counted), ended with updatePodStatus's
// write of another UID's status onto the object of that name, answered
// Conflict. A name whose handler ran again after such a write and
// drained is not one, nor a name whose write was an earlier generation's
// (vk-swarm seed 27,898 had both).
func (ev *Facts) statusByNameLeft(items int) bool {
	if items == 0 || ev.OtherQueuesLeft != 0 || ev.StatusQueueLeft != items {
		return false
	}
	wrong := 0
	for key, a := range ev.LastStatusWrite {
		if a.Caller == "updatePodStatus" && a.UID != a.APIUID && a.Conflict && a.Run == ev.StatusRuns[key] && a.Gen == ev.Gen {
			wrong++
		}
	}
	return wrong == items
}

// notificationsDropped (VL): U had notifications that match, made after
// notify move since, and enqueuePodStatusUpdate dropped every one of them.
func (ev *Facts) notificationsDropped(uid types.UID, match func(Notify) bool, since int) bool {
	seen := false
	for i, n := range ev.Notifies {
		if i > since && n.UID == uid && match(n) {
			if n.Dropped == "" {
				return false
			}
			seen = true
		}
	}
	return seen
}

// editedAway: U's status version v took effect in the API, and an outside
// edit replaced it after U's last effective status write; since is the
// last notify move before the edit. A loss of v is then a loss of the
// notifications after it: all dropped is VL (vk-swarm seed 22,344: the
// re-notification that would have written v again came while a restarted
// controller's informer had not listed the pod), all taken by
// generations stopped before writing them is VO (a guided vk-swarm run:
// the re-notification was skipped as equal to the last, and the
// generation was stopped before the edit's update event could re-check
// it).
func (ev *Facts) editedAway(uid types.UID, v int) (since int, ok bool) {
	e, ok := ev.Edits[uid]
	writes := ev.StatusWrites[uid]
	if !ok || len(writes) == 0 || writes[len(writes)-1].Seq > e.StatusSeq || !ev.wroteVersion(uid, v) {
		return 0, false
	}
	return e.NotifySeq, true
}

// lateNotificationWritten (VM): a notification of U's version v was
// accepted; an earlier notification of U with another version w was
// accepted after it; and U's last effective status write, after that,
// was updatePodStatus's of w, or handleProviderError's following such a
// write (VG's overwrite then took the API from w; v was already lost to
// VM, as updatePodStatus never had it to write).
func (ev *Facts) lateNotificationWritten(uid types.UID, v int) bool {
	writes := ev.StatusWrites[uid]
	i := len(writes) - 1
	for i >= 0 && writes[i].Caller == "handleProviderError" {
		i--
	}
	if i < 0 {
		return false
	}
	last := writes[i]
	if last.Caller != "updatePodStatus" || last.Version == v {
		return false
	}
	for newer, nv := range ev.Notifies {
		if nv.UID != uid || nv.Version != v || nv.Accepted == 0 {
			continue
		}
		for older, nw := range ev.Notifies {
			if older < newer && nw.UID == uid && nw.Version == last.Version &&
				nw.Accepted > nv.Accepted && last.Seq > nw.Accepted {
				return true
			}
		}
	}
	return false
}

// skipNeverRechecked (VN): U's last effective controller status write
// was updatePodStatus's of v, yet the API holds another version at the
// end (someone else wrote it); the last notification of U accepted after
// that write carried v and followed an accepted notification of v (so it
// was skipped as equal); and no update event of U ran in that
// notification's generation after it.
func (ev *Facts) skipNeverRechecked(uid types.UID, v int) bool {
	writes := ev.StatusWrites[uid]
	if len(writes) == 0 || ev.End == nil {
		return false
	}
	last := writes[len(writes)-1]
	if last.Caller != "updatePodStatus" || last.Version != v || ev.End.APIVersion[uid] == v {
		return false
	}
	var skipped Notify
	for _, n := range ev.Notifies {
		if n.UID == uid && n.Accepted > skipped.Accepted {
			skipped = n
		}
	}
	if skipped.Accepted < last.Seq || skipped.Version != v {
		return false
	}
	equalBefore := false
	for _, n := range ev.Notifies {
		if n.UID == uid && n.Version == v && n.Accepted != 0 && n.Accepted < skipped.Accepted {
			equalBefore = true
		}
	}
	return equalBefore && ev.LastUpdateEvent[GenUID{skipped.Gen, uid}] < skipped.Accepted
}

// lostWithRun (VO): U had notifications after notify move since that
// match; at least one was accepted by a controller generation that is not
// the last one (it was stopped after), and every other one was too, or was
// dropped (VL's poll ended first, as in vk-swarm seed 12,121: the loss is
// VO's and VL's together, named VO, whose notification was the one a
// controller took).
func (ev *Facts) lostWithRun(uid types.UID, match func(Notify) bool, since int) bool {
	lost := false
	for i, n := range ev.Notifies {
		if i <= since || n.UID != uid || !match(n) || n.Dropped != "" {
			continue
		}
		if n.Accepted == 0 || n.Gen >= ev.Gen {
			return false
		}
		lost = true
	}
	return lost
}

// entryClearedByOldUID (VP): U's version v never took effect; every
// notification of v was accepted, at least one, and after each, in its
// generation, the handler ran the delete event of another UID under U's
// key, which removed the key's tracking entry and the status stored in it
// (vk-delete-recreate seed 11,824).
func (ev *Facts) entryClearedByOldUID(uid types.UID, key string, v int) bool {
	if ev.wroteVersion(uid, v) {
		return false
	}
	seen := false
	for _, n := range ev.Notifies {
		if n.UID != uid || n.Version != v {
			continue
		}
		if n.Accepted == 0 || !ev.otherUIDDeletedAfter(n.Gen, key, uid, n.Accepted) {
			return false
		}
		seen = true
	}
	return seen
}

// otherUIDDeletedAfter: generation gen's handler ran a delete event of a
// UID other than uid under key after statusSeq seq.
func (ev *Facts) otherUIDDeletedAfter(gen int, key string, uid types.UID, seq int) bool {
	for _, e := range ev.DeleteEvents {
		if e.Gen == gen && e.Key == key && e.UID != uid && e.Seq > seq {
			return true
		}
	}
	return false
}

// wroteVersion: a status write of U with version v took effect.
func (ev *Facts) wroteVersion(uid types.UID, v int) bool {
	for _, w := range ev.StatusWrites[uid] {
		if w.Version == v {
			return true
		}
	}
	return false
}

// statusOverwritten: U's provider status version v reached the API by
// updatePodStatus, and U's last effective status write was
// handleProviderError's, after it.
func (ev *Facts) statusOverwritten(uid types.UID, v int) bool {
	writes := ev.StatusWrites[uid]
	if len(writes) == 0 || writes[len(writes)-1].Caller != "handleProviderError" {
		return false
	}
	for _, w := range writes[:len(writes)-1] {
		if w.Caller == "updatePodStatus" && w.Version == v {
			return true
		}
	}
	return false
}

// danglingFailedEverywhere: every controller generation that ran
// deleteDanglingPods had its GetPods fail or its DeletePod of key fail,
// and at least one ran.
func (ev *Facts) danglingFailedEverywhere(key string) bool {
	ran, failed := ev.danglingRuns(key)
	return len(ran) > 0 && failedIn(ran, failed, 0)
}
