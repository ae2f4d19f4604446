package realvk

import (
	"maps"
	"slices"

	"github.com/podsim/podsim/realvk/callgate"
	"k8s.io/apimachinery/pkg/types"
)

// The predicates of the classes written from the 500-seed sweep's last
// unexplained findings (VI–VO, and VD for a pod that left the API); the
// classifier (classify.go) calls them with the world's lock held.

// danglingRuns: the generations that ran deleteDanglingPods, and those
// whose GetPods or DeletePod of key failed.
func (d *Driver) danglingRuns(key string) (ran, failed map[int]bool) {
	ran, failed = map[int]bool{}, map[int]bool{}
	for _, c := range d.W.danglingCalls {
		if c.op == "provider.GetPods" {
			ran[c.gen] = true
		}
		if c.outcome != callgate.OK && (c.op == "provider.GetPods" || c.key == key) {
			failed[c.gen] = true
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
func (d *Driver) danglingAfterRestart(key string, uid types.UID) bool {
	w := d.W
	gR, ok := w.removedGen[uid]
	if !ok {
		return false
	}
	if d.danglingSince(key, uid, gR) {
		return true
	}
	from, listed := w.watchFrom[gR]
	return (!listed || w.removedAt[uid] < from) && d.danglingSince(key, uid, gR-1)
}

// danglingSince is danglingAfterRestart for a pod that left the API in
// generation gR.
func (d *Driver) danglingSince(key string, uid types.UID, gR int) bool {
	w := d.W
	if gR >= w.gen {
		return false
	}
	if c, ok := w.lastCleanup[key]; ok && (c.gen >= w.gen || c.outcome == callgate.Missing) {
		return false
	}
	ran, failed := d.danglingRuns(key)
	later := 0
	for g := range ran {
		if g <= gR {
			continue
		}
		later++
		if failed[g] || !slices.Contains(slices.Collect(maps.Values(w.podsGiven[g])), key) {
			continue
		}
		// g listed the pod and did not fail: explained only if its lister
		// held another UID under the name, which the sweep's by-name
		// check takes for the provider's pod (VA's comparison).
		if held := w.sweepHeld[g][key]; held == "" || held == uid {
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
func (d *Driver) cleanupTrustedMissing(key string, uid types.UID) bool {
	c, ok := d.W.lastCleanup[key]
	if !ok || c.op != "provider.GetPod" || c.outcome != callgate.Missing || c.providerUID != uid || c.apiHasName {
		return false
	}
	ran, failed := d.danglingRuns(key)
	return failedIn(ran, failed, c.gen)
}

// statusByNameLeft (VJ): the items left are all in the status queue, and
// as many names' last status handler run, in the last controller
// generation (whose queues were counted), ended with updatePodStatus's
// write of another UID's status onto the object of that name, answered
// Conflict. A name whose handler ran again after such a write and
// drained is not one, nor a name whose write was an earlier generation's
// (vk-swarm seed 27,898 had both).
func (d *Driver) statusByNameLeft(items int) bool {
	w := d.W
	if items == 0 || w.otherQueuesLeft != 0 || w.statusQueueLeft != items {
		return false
	}
	wrong := 0
	for key, a := range w.lastStatusWrite {
		if a.caller == "updatePodStatus" && a.uid != a.apiUID && a.conflict && a.run == w.statusRuns[key] && a.gen == w.gen {
			wrong++
		}
	}
	return wrong == items
}

// notificationsDropped (VL): U had notifications that match, made after
// notify move since, and enqueuePodStatusUpdate dropped every one of them.
func (d *Driver) notificationsDropped(uid types.UID, match func(notifyRecord) bool, since int) bool {
	seen := false
	for i, n := range d.W.notifies {
		if i > since && n.uid == uid && match(n) {
			if n.dropped == "" {
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
func (d *Driver) editedAway(uid types.UID, v int) (since int, ok bool) {
	e, ok := d.W.edits[uid]
	writes := d.W.statusWrites[uid]
	if !ok || len(writes) == 0 || writes[len(writes)-1].seq > e.statusSeq || !d.wroteVersion(uid, v) {
		return 0, false
	}
	return e.notifySeq, true
}

// lateNotificationWritten (VM): a notification of U's version v was
// accepted; an earlier notification of U with another version w was
// accepted after it; and U's last effective status write, after that,
// was updatePodStatus's of w, or handleProviderError's following such a
// write (VG's overwrite then took the API from w; v was already lost to
// VM, as updatePodStatus never had it to write).
func (d *Driver) lateNotificationWritten(uid types.UID, v int) bool {
	writes := d.W.statusWrites[uid]
	i := len(writes) - 1
	for i >= 0 && writes[i].caller == "handleProviderError" {
		i--
	}
	if i < 0 {
		return false
	}
	last := writes[i]
	if last.caller != "updatePodStatus" || last.version == v {
		return false
	}
	for newer, nv := range d.W.notifies {
		if nv.uid != uid || nv.version != v || nv.accepted == 0 {
			continue
		}
		for older, nw := range d.W.notifies {
			if older < newer && nw.uid == uid && nw.version == last.version &&
				nw.accepted > nv.accepted && last.seq > nw.accepted {
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
func (d *Driver) skipNeverRechecked(uid types.UID, v int) bool {
	writes := d.W.statusWrites[uid]
	if len(writes) == 0 || d.final == nil {
		return false
	}
	last := writes[len(writes)-1]
	if last.caller != "updatePodStatus" || last.version != v || d.final.apiVersion[uid] == v {
		return false
	}
	var skipped notifyRecord
	for _, n := range d.W.notifies {
		if n.uid == uid && n.accepted > skipped.accepted {
			skipped = n
		}
	}
	if skipped.accepted < last.seq || skipped.version != v {
		return false
	}
	equalBefore := false
	for _, n := range d.W.notifies {
		if n.uid == uid && n.version == v && n.accepted != 0 && n.accepted < skipped.accepted {
			equalBefore = true
		}
	}
	return equalBefore && d.W.lastUpdateEvent[genUID{skipped.gen, uid}] < skipped.accepted
}

// lostWithRun (VO): U had notifications after notify move since that
// match; at least one was accepted by a controller generation that is not
// the last one (it was stopped after), and every other one was too, or was
// dropped (VL's poll ended first, as in vk-swarm seed 12,121: the loss is
// VO's and VL's together, named VO, whose notification was the one a
// controller took).
func (d *Driver) lostWithRun(uid types.UID, match func(notifyRecord) bool, since int) bool {
	lost := false
	for i, n := range d.W.notifies {
		if i <= since || n.uid != uid || !match(n) || n.dropped != "" {
			continue
		}
		if n.accepted == 0 || n.gen >= d.W.gen {
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
func (d *Driver) entryClearedByOldUID(uid types.UID, key string, v int) bool {
	if d.wroteVersion(uid, v) {
		return false
	}
	seen := false
	for _, n := range d.W.notifies {
		if n.uid != uid || n.version != v {
			continue
		}
		if n.accepted == 0 || !d.otherUIDDeletedAfter(n.gen, key, uid, n.accepted) {
			return false
		}
		seen = true
	}
	return seen
}

// otherUIDDeletedAfter: generation gen's handler ran a delete event of a
// UID other than uid under key after statusSeq seq.
func (d *Driver) otherUIDDeletedAfter(gen int, key string, uid types.UID, seq int) bool {
	for _, e := range d.W.deleteEvents {
		if e.gen == gen && e.key == key && e.uid != uid && e.seq > seq {
			return true
		}
	}
	return false
}

// wroteVersion: a status write of U with version v took effect.
func (d *Driver) wroteVersion(uid types.UID, v int) bool {
	for _, w := range d.W.statusWrites[uid] {
		if w.version == v {
			return true
		}
	}
	return false
}

// statusOverwritten: U's provider status version v reached the API by
// updatePodStatus, and U's last effective status write was
// handleProviderError's, after it.
func (d *Driver) statusOverwritten(uid types.UID, v int) bool {
	writes := d.W.statusWrites[uid]
	if len(writes) == 0 || writes[len(writes)-1].caller != "handleProviderError" {
		return false
	}
	for _, w := range writes[:len(writes)-1] {
		if w.caller == "updatePodStatus" && w.version == v {
			return true
		}
	}
	return false
}

// danglingFailedEverywhere: every controller generation that ran
// deleteDanglingPods had its GetPods fail or its DeletePod of key fail,
// and at least one ran.
func (d *Driver) danglingFailedEverywhere(key string) bool {
	ran, failed := d.danglingRuns(key)
	return len(ran) > 0 && failedIn(ran, failed, 0)
}
