package explain

import (
	"regexp"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/types"
)

// The classes of upstream deviations (docs/upstream-findings.md,
// "virtual-kubelet").
const (
	// ClassNameKeyed (VA): the controller identifies a provider pod by
	// namespace/name alone. createOrUpdatePod asks GetPod(ns, name) and,
	// when the provider has a pod of that name, compares it with podsEqual,
	// which ignores the UID; the sync of a name whose API object was
	// replaced by a new UID while the provider still held (or, from a
	// stale cache, was just given) the old UID therefore neither creates
	// the new pod nor deletes the old one.
	ClassNameKeyed = "VA"
	// ClassNoPrecondition (VB): the controller's propagation of a
	// provider-initiated deletion (updatePodStatus, when the provider's
	// pod has a deletion timestamp and the API's has none) deletes the
	// API object with a grace period but no UID precondition.
	ClassNoPrecondition = "VB"
	// ClassStatusInsteadOfDelete (VC): updatePodStatus propagates a
	// provider-initiated deletion only when the informer's status of the
	// pod equals the provider's (cmp.Equal of the two statuses); otherwise
	// it writes the provider's status and drops the deletion, and nothing
	// retries it unless the provider notifies again.
	ClassStatusInsteadOfDelete = "VC"
	// ClassDanglingOnce (VD): deleteDanglingPods runs once per Run, best
	// effort: when its GetPods or a DeletePod fails, the dangling pod
	// stays in the provider for good (the code says so: "deletion won't
	// be retried").
	ClassDanglingOnce = "VD"
	// ClassCancelledBeforeReady (VE): a controller cancelled before its
	// informer synced returns from Run with "failed to wait for caches to
	// sync" and never closes Ready, as Ready's documentation says; the
	// oracle's "every start becomes Ready" does not hold for it.
	ClassCancelledBeforeReady = "VE"
	// ClassStaleNotRunning (VF): syncPodInProvider force-deletes a pod
	// with a deletion timestamp at once, without deleting it in the
	// provider, when the informer's copy shows no running container; the
	// copy can be older than a status write that says Running, so the
	// object is removed while the provider still runs the pod and before
	// its grace expired.
	ClassStaleNotRunning = "VF"
	// ClassErrorStatusOverwrites (VG): handleProviderError writes its
	// ProviderFailed status with the resource version blanked, so it
	// overwrites whatever status the API holds, including a newer one the
	// controller itself had just written from the provider's notification
	// (createOrUpdatePod ignores a failing GetPod and calls CreatePod for a
	// pod the provider runs, whose error lands here); the status queue
	// remembers that status as already received, so nothing writes it
	// again unless the provider notifies a different one.
	ClassErrorStatusOverwrites = "VG"
	// ClassTerminalNotDeleted (VH): updatePodStatus returns at once when
	// the informer's pod is Succeeded or Failed (shouldSkipPodStatusUpdate),
	// before it looks at the provider's deletion timestamp: a
	// provider-initiated deletion of a pod whose API status is already
	// terminal is never propagated.
	ClassTerminalNotDeleted = "VH"
	// ClassCleanupTrustsGetPod (VI): when a pod has left the API (the
	// informer's lister no longer has it), syncPodFromKubernetesHandler
	// asks the provider GetPod(namespace, name) and deletes the pod only
	// if it is returned; a not-found ends the cleanup with no error, so
	// nothing retries it, and only the next Run's deleteDanglingPods
	// looks again. A provider whose GetPod answers not-found once for a
	// pod it runs (a stale cache) keeps that pod running for good.
	ClassCleanupTrustsGetPod = "VI"
	// ClassStatusByName (VJ): the status path is keyed by namespace/name
	// too. A provider status notified for UID U is stored in the tracking
	// entry of U's name and written by updatePodStatus onto whatever
	// object the informer has under that name; once that is another UID
	// (a re-created pod), the API rejects the write (Conflict: the status
	// carries U), and the key is retried with exponential back-off (up to
	// 20 times) long after everything else settled.
	ClassStatusByName = "VJ"
	// ClassNotificationDropped (VL; "VK" is skipped so that no class
	// reads like a check): enqueuePodStatusUpdate waits for the pod to be
	// tracked (knownPods, filled by the informer's add handler) by polling
	// every 151 ms for at most 20 periods; when the poll ends first (the
	// timeout, or the controller's context ended) the notification is
	// dropped, and nothing asks the provider for the status again: a
	// provider that notifies changes only never has it written, nor, when
	// the dropped notification carried the provider's deletion, is the
	// pod's deletion ever propagated to the API (VK3).
	ClassNotificationDropped = "VL"
	// ClassLateNotification (VM): a notification that polls for its pod
	// to be tracked stores its status in the tracking entry whenever the
	// poll finds it, with no check that a newer notification was stored
	// meanwhile; the older status is then written over the newer one,
	// and a provider that reports changes only never corrects it.
	ClassLateNotification = "VM"
	// ClassSkipNeverRechecked (VN): a notification equal to the last one
	// received is skipped (lastPodStatusUpdateSkipped), and only a later
	// informer update event re-checks the skip against the API's status
	// (V5's fix, #898). When someone else changed the API's status and
	// its update event was handled before the skipped notification, no
	// event comes after it: the provider's status is never written again.
	ClassSkipNeverRechecked = "VN"
	// ClassLostWithRun (VO): a notification is held only in the
	// tracking entry and the status queue of the controller that took it;
	// when that controller is stopped before the queue wrote it, the
	// next Run starts with empty tracking entries and never asks the
	// provider: the status (or the provider's deletion) is lost.
	ClassLostWithRun = "VO"
	// ClassEntryClearedByOldUID (VP): the tracking entry of a pod
	// (knownPods) is keyed by name, and the informer's delete handler
	// removes the name's entry whatever the deleted object's UID. When a
	// pod is re-created under the same name and the provider's status of
	// the new UID was stored in the entry before the old UID's delete
	// event ran, the delete takes the stored status with it: the status
	// handler finds no entry and returns, the new UID's add event makes an
	// empty one, and a provider that notifies changes only never has that
	// status written.
	ClassEntryClearedByOldUID = "VP"
)

// How Classify explains a finding: each class is an exact predicate over
// the final state the finding is about:
//
//   - VA, for VK6 "live in the API but does not run in the provider" on
//     UID U named N, and VK3 "left the API but still runs in the provider"
//     on UID U named N: at the end the API object named N and the provider
//     pod under the key default/N both exist, with different UIDs (one of
//     them U).
//   - VB, for VK1 on UID U with precondition "": the controller's last API
//     delete of U was made by updatePodStatus (the call's node-package
//     caller, package callgate); and for VK3 "the controller removed pod U
//     from the API although nobody had deleted it": the same. The
//     provider deleted another UID of U's name and updatePodStatus's
//     delete by name, with no precondition, removed U (vk-swarm seed
//     8,517); updatePodStatus deletes only to propagate a provider
//     deletion, so a removal of U nobody asked for is that delete landing
//     on the wrong UID.
//   - VC, for VK3 "the provider deleted pod U by itself, but its API object
//     was never deleted": the controller never deleted U in the API, and
//     after the provider notified U with a deletion timestamp,
//     updatePodStatus wrote U's status (the branch taken when the
//     informer's status differs from the provider's).
//   - VD, for VK5 "provider pod U has no API object and was never
//     deleted": in every controller generation that ran deleteDanglingPods
//     (at least one), its GetPods or its DeletePod of default/pod-U
//     failed.
//   - VD also, for VK3 "left the API but still runs in the provider" on
//     U named N (when VI's clause fails): at the end no API object is
//     named N and the provider runs U under default/N; the controller
//     was restarted after the generation in which U left the API (or
//     after the one before, if that generation's informer had not listed
//     yet); the
//     informer's cleanup of default/N, if made, was not the last
//     generation's and did not end with a not-found; at least one later
//     generation ran deleteDanglingPods, and each failed its GetPods, or
//     its DeletePod of default/N, or listed no default/N.
//   - VE, for VK7 "controller start G never became Ready": G was
//     cancelled before Ready closed and its Run returned "failed to wait
//     for caches to sync".
//   - VG, for VK2 "the provider's last status for pod U …, vV …, never
//     reached the API": updatePodStatus wrote U's status version V, and
//     U's last status write that took effect came after it and was
//     handleProviderError's.
//   - VL, for the same VK2 (when VG's clause fails): U's version V was
//     notified, and enqueuePodStatusUpdate dropped every notification of
//     it (its span's status was set: its poll ended before the pod was
//     tracked); and for VK3 "the provider deleted pod U by itself …"
//     (when VC's, VH's and VO's fail): the controller never deleted U in
//     the API nor wrote its status after the deletion was notified, and
//     every notification of the deletion was dropped so.
//   - VM, for the same VK2 (when VG's and VL's fail): a notification of
//     V was accepted, an earlier notification of U with another version
//     W was accepted after it, and U's last effective status write,
//     after that, was updatePodStatus's of W.
//   - VN, for the same VK2 (when VG's, VL's and VM's fail): U's last
//     effective controller status write was updatePodStatus's of V but
//     the API holds another version at the end; the last notification of
//     U accepted after that write carried V and followed an accepted
//     notification of V (skipped as equal); no update event of U ran in
//     its generation after it.
//   - VO, for the same VK2 (when VG's, VL's, VM's and VN's fail): every
//     notification of V was accepted by a generation before the last,
//     and no status write of V took effect; and for VK3 "the provider
//     deleted pod U by itself …" (when VC's and VH's fail): the controller
//     never deleted U in the API nor wrote its status after the deletion
//     was notified, and every notification of the deletion was accepted
//     by a generation before the last.
//   - VP, for the same VK2 on U named N (when VG's to VO's fail): V never
//     took effect, and every notification of V was accepted, and then,
//     in its generation, the handler ran the delete event of another UID
//     under N (which removes N's tracking entry).
//   - VH, for the same VK3 "… by itself …" on U: the controller never
//     deleted U in the API, the provider notified U with a deletion
//     timestamp, updatePodStatus wrote no status of U after that, and U's
//     phase in the API at the end is Succeeded or Failed.
//   - VI, for VK3 "left the API but still runs in the provider" on UID U
//     named N: at the end no API object is named N and the provider runs
//     U under default/N; syncPodFromKubernetesHandler's last provider
//     call for default/N was a GetPod answered not-found while the
//     provider held U there and the API had no object named N; and every
//     later generation that ran deleteDanglingPods failed its GetPods or
//     its DeletePod of default/N.
//   - VJ, for VK7 "K items were left in the controller's queues": all K
//     are in the status queue (the other two are empty), and exactly K
//     names' last status handler run ended with updatePodStatus's write
//     of a UID other than the API object's of that name, answered
//     Conflict.
//   - VF, for VK3 "removed … while its status said Running, before the
//     provider reported it terminal": the removing API delete was the
//     forced delete (deletePodsFromKubernetesHandler) and the provider
//     still ran U when it was made (no provider DeletePod of U had taken
//     effect: the delete was queued by the not-running shortcut).

// Classify explains the finding check/message by a known upstream
// deviation; "" if none fits: a finding of a message that names no pod by
// its own classifier (messageClasses), else by the pod it names
// (classifyPod), which needs the end state.
func (ev *Facts) Classify(check, message string) string {
	for _, c := range messageClasses {
		if m := c.ref.FindStringSubmatch(message); m != nil && check == c.check {
			return c.class(ev, m)
		}
	}
	m := podRef.FindStringSubmatch(message)
	if m == nil || ev.End == nil {
		return ""
	}
	return ev.classifyPod(check, message, types.UID(m[1]), m[2])
}

var (
	lostStatusRef = regexp.MustCompile(`^the provider's last status for pod (\S+) \((\S+)\), v(\d+) `)
	queuedRef     = regexp.MustCompile(`^(\d+) items were left in the controller's queues`)
	readyRef      = regexp.MustCompile(`^controller start (\d+) never became Ready`)
	danglingRef   = regexp.MustCompile(`^provider pod (\S+) has no API object and was never deleted`)
	podRef        = regexp.MustCompile(`pod (\S+) \((\S+)\)`)
)

// messageClasses are the classifiers of the findings whose message names
// no pod as podRef reads it, in the order they are tried: the check, the
// message's pattern, and the class of its submatches.
var messageClasses = []struct {
	check string
	ref   *regexp.Regexp
	class func(ev *Facts, m []string) string
}{
	{"VK7", readyRef, (*Facts).classNeverReady},
	{"VK7", queuedRef, (*Facts).classQueued},
	{"VK5", danglingRef, (*Facts).classDangling},
	{"VK2", lostStatusRef, (*Facts).classLostStatus},
}

// classNeverReady is VE's: controller start m[1] never became Ready.
func (ev *Facts) classNeverReady(m []string) string {
	gen, _ := strconv.Atoi(m[1])
	if ev.Cancelled[gen] && !ev.Ready[gen] && ev.DoneErr[gen] == "failed to wait for caches to sync" {
		return ClassCancelledBeforeReady
	}
	return ""
}

// classQueued is VJ's: m[1] items were left in the controller's queues.
func (ev *Facts) classQueued(m []string) string {
	items, _ := strconv.Atoi(m[1])
	if ev.statusByNameLeft(items) {
		return ClassStatusByName
	}
	return ""
}

// classDangling is VD's for VK5: provider pod m[1] was never deleted.
func (ev *Facts) classDangling(m []string) string {
	if ev.danglingFailedEverywhere(Namespace + "/pod-" + m[1]) {
		return ClassDanglingOnce
	}
	return ""
}

// classLostStatus is VK2's (VG, VL, VM, VN, VO, VP, tried in that
// order): the provider's last status of pod m[1] named m[2], version
// m[3], never reached the API.
func (ev *Facts) classLostStatus(m []string) string {
	uid := types.UID(m[1])
	v, _ := strconv.Atoi(m[3])
	version := func(n Notify) bool { return n.Version == v }
	since, edited := ev.editedAway(uid, v)
	switch {
	case ev.statusOverwritten(uid, v):
		return ClassErrorStatusOverwrites
	case ev.notificationsDropped(uid, version, 0), edited && ev.notificationsDropped(uid, version, since):
		return ClassNotificationDropped
	case ev.lateNotificationWritten(uid, v):
		return ClassLateNotification
	case ev.skipNeverRechecked(uid, v):
		return ClassSkipNeverRechecked
	case ev.lostWithRun(uid, version, 0) && !ev.wroteVersion(uid, v), edited && ev.lostWithRun(uid, version, since):
		return ClassLostWithRun
	case ev.entryClearedByOldUID(uid, Namespace+"/"+m[2], v):
		return ClassEntryClearedByOldUID
	}
	return ""
}

// classifyPod classifies the findings about pod uid named name (VA, VB,
// VC, VD, VF, VH, VI, VL, VO).
func (ev *Facts) classifyPod(check, message string, uid types.UID, name string) string {
	switch {
	case check == "VK1" && strings.Contains(message, `UID precondition ""`):
		if ev.DeleteCaller[uid] == "updatePodStatus" {
			return ClassNoPrecondition
		}
	case check == "VK3" && strings.Contains(message, "from the API although nobody had deleted it"):
		if ev.DeleteCaller[uid] == "updatePodStatus" {
			return ClassNoPrecondition
		}
	case check == "VK3" && strings.Contains(message, "while its status said Running, before the provider reported it terminal"):
		if ev.DeletedWhileRunning[uid] == "deletePodsFromKubernetesHandler" {
			return ClassStaleNotRunning
		}
	case check == "VK3" && strings.Contains(message, "by itself, but its API object was never deleted"):
		return ev.classProviderDeleted(uid)
	case check == "VK6" && strings.Contains(message, "does not run in the provider"),
		check == "VK3" && strings.Contains(message, "still runs in the provider"):
		api, prov := ev.End.APIByName[name], ev.End.ProviderByName[name]
		if api != "" && prov != "" && api != prov && (api == uid || prov == uid) {
			return ClassNameKeyed
		}
		if check == "VK3" && api == "" && prov == uid {
			if ev.cleanupTrustedMissing(Namespace+"/"+name, uid) {
				return ClassCleanupTrustsGetPod
			}
			if ev.danglingAfterRestart(Namespace+"/"+name, uid) {
				return ClassDanglingOnce
			}
		}
	}
	return ""
}

// classProviderDeleted is VK3's "the provider deleted pod U by itself, but
// its API object was never deleted" (VC, VH, VO, VL, tried in that order).
func (ev *Facts) classProviderDeleted(uid types.UID) string {
	if ev.DeleteCaller[uid] != "" {
		return ""
	}
	deleting := func(n Notify) bool { return n.Deleting }
	switch {
	case ev.StatusInsteadOfDelete[uid]:
		return ClassStatusInsteadOfDelete
	case ev.DeletingNotified[uid] && terminal(ev.End.APIPhase[uid]):
		return ClassTerminalNotDeleted
	case ev.lostWithRun(uid, deleting, 0):
		return ClassLostWithRun
	case ev.notificationsDropped(uid, deleting, 0):
		return ClassNotificationDropped
	}
	return ""
}
