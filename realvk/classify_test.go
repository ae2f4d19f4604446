package realvk

import (
	"testing"
	"testing/synctest"

	"github.com/podsim/podsim/realvk/callgate"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Negative tests of VI–VO and of VD for a pod that left the API (the
// losses after an outside edit and VP: classify_edit_test.go): each
// predicate rejects the look-alikes that lack a link of its causal chain.

// TestClassifyCleanupNegative: VI needs the cleanup's last provider call
// to be a not-found GetPod for the very UID the provider runs, made when
// the API had no object of the name, and no later successful dangling
// cleanup.
func TestClassifyCleanupNegative(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := NewDriver()
		d.final = &endState{apiByName: map[string]types.UID{}, providerByName: map[string]types.UID{"pod-a": "a"}}
		f := Finding{Check: "VK3", Message: "pod a (pod-a) left the API but still runs in the provider at the end (VK3)"}
		vi := cleanupCall{gen: 1, op: "provider.GetPod", outcome: callgate.Missing, providerUID: "a"}
		cases := []struct {
			name    string
			last    *cleanupCall
			dangled []danglingCall
			want    string
		}{
			{"no cleanup call", nil, nil, ""},
			{"VI", &vi, nil, ClassCleanupTrustsGetPod},
			{"the GetPod failed (retried, then lost to a stop)", &cleanupCall{gen: 1, op: "provider.GetPod", outcome: callgate.Fail, providerUID: "a"}, nil, ""},
			{"the last call was a failed DeletePod", &cleanupCall{gen: 1, op: "provider.DeletePod", outcome: callgate.Fail, providerUID: "a"}, nil, ""},
			{"the provider held another UID then", &cleanupCall{gen: 1, op: "provider.GetPod", outcome: callgate.Missing, providerUID: "z"}, nil, ""},
			{"the provider held nothing then", &cleanupCall{gen: 1, op: "provider.GetPod", outcome: callgate.Missing}, nil, ""},
			{"the API had an object of the name then", &cleanupCall{gen: 1, op: "provider.GetPod", outcome: callgate.Missing, providerUID: "a", apiHasName: true}, nil, ""},
			{"a later generation's dangling cleanup ran without failing", &vi,
				[]danglingCall{{gen: 2, op: "provider.GetPods", outcome: callgate.OK}}, ""},
			{"a later generation's DeletePod of it failed", &vi,
				[]danglingCall{{gen: 2, op: "provider.GetPods", outcome: callgate.OK}, {gen: 2, op: "provider.DeletePod", key: "default/pod-a", outcome: callgate.Fail}}, ClassCleanupTrustsGetPod},
			{"an earlier generation's dangling cleanup ran", &vi,
				[]danglingCall{{gen: 1, op: "provider.GetPods", outcome: callgate.OK}}, ClassCleanupTrustsGetPod},
		}
		for _, c := range cases {
			delete(d.W.lastCleanup, "default/pod-a")
			if c.last != nil {
				d.W.lastCleanup["default/pod-a"] = *c.last
			}
			d.W.danglingCalls = c.dangled
			if got := d.classify(f); got != c.want {
				t.Errorf("%s: classified %q, want %q", c.name, got, c.want)
			}
		}
		d.W.lastCleanup["default/pod-a"] = vi
		d.W.danglingCalls = nil
		d.final.apiByName["pod-a"] = "b"
		if got := d.classify(f); got == ClassCleanupTrustsGetPod {
			t.Errorf("an API object named pod-a at the end: classified VI")
		}
		d.final.apiByName = map[string]types.UID{}
		d.final.providerByName["pod-a"] = "z"
		if got := d.classify(f); got != "" {
			t.Errorf("another UID runs under the name at the end: classified %q", got)
		}
		d.final.providerByName["pod-a"] = "a"
		if got := d.classify(Finding{Check: "VK6", Message: f.Message}); got != "" {
			t.Errorf("another check with VI's message: classified %q", got)
		}
	})
}

// TestClassifyStatusByNameNegative: VJ needs every item left to be in
// the status queue and each to match a name whose last status write was
// updatePodStatus's of another UID's status, rejected as a Conflict.
func TestClassifyStatusByNameNegative(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := NewDriver()
		f := Finding{Check: "VK7", Message: "1 items were left in the controller's queues at the end: they never drained (VK7)"}
		wrongUID := statusAttempt{caller: "updatePodStatus", uid: "a", apiUID: "b", conflict: true}
		cases := []struct {
			name          string
			writes        map[string]statusAttempt
			status, other int
			want          string
			runs          map[string]int
		}{
			{"nothing recorded", nil, 1, 0, "", nil},
			{"VJ", map[string]statusAttempt{"default/db": wrongUID}, 1, 0, ClassStatusByName, nil},
			{"the item is in another queue", map[string]statusAttempt{"default/db": wrongUID}, 0, 1, "", nil},
			{"an item in another queue too", map[string]statusAttempt{"default/db": wrongUID}, 1, 1, "", nil},
			{"a conflict on the pod's own UID (a stale resource version)",
				map[string]statusAttempt{"default/db": {caller: "updatePodStatus", uid: "b", apiUID: "b", conflict: true}}, 1, 0, "", nil},
			{"another UID's status that went through",
				map[string]statusAttempt{"default/db": {caller: "updatePodStatus", uid: "a", apiUID: "b"}}, 1, 0, "", nil},
			{"handleProviderError's write",
				map[string]statusAttempt{"default/db": {caller: "handleProviderError", uid: "a", apiUID: "b", conflict: true}}, 1, 0, "", nil},
			{"two such names for one item",
				map[string]statusAttempt{"default/db": wrongUID, "default/web": wrongUID}, 1, 0, "", nil},
			{"two such names, one of whose handler ran again and drained (vk-swarm seed 27,898)",
				map[string]statusAttempt{"default/db": wrongUID, "default/web": wrongUID}, 1, 0, ClassStatusByName, map[string]int{"default/db": 1}},
			{"one such name whose handler ran again",
				map[string]statusAttempt{"default/db": wrongUID}, 1, 0, "", map[string]int{"default/db": 1}},
		}
		for _, c := range cases {
			d.W.statusRuns = c.runs
			d.W.lastStatusWrite = c.writes
			d.W.statusQueueLeft, d.W.otherQueuesLeft = c.status, c.other
			if got := d.classify(f); got != c.want {
				t.Errorf("%s: classified %q, want %q", c.name, got, c.want)
			}
		}
		d.W.lastStatusWrite, d.W.statusRuns = map[string]statusAttempt{"default/db": wrongUID}, nil
		d.W.statusQueueLeft, d.W.otherQueuesLeft = 1, 0
		d.W.gen = 1
		if got := d.classify(f); got != "" {
			t.Errorf("the write of a generation before the last: classified %q", got)
		}
		d.W.gen = 0
		if got := d.classify(Finding{Check: "VK7", Message: "controller start 1 never became Ready (VK7)"}); got != "" {
			t.Errorf("another VK7 with VJ's state: classified %q", got)
		}
	})
}

// TestClassifyDroppedNotificationNegative: VL needs the lost version to
// have been notified, and every notification of it dropped by
// enqueuePodStatusUpdate.
func TestClassifyDroppedNotificationNegative(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := NewDriver()
		f := Finding{Check: "VK2", Message: "the provider's last status for pod a (pod-a), v2 Failed, never reached the API, which holds v0 Pending (VK2)"}
		cases := []struct {
			name     string
			notifies map[int]notifyRecord
			want     string
		}{
			{"never notified", nil, ""},
			{"VL: the poll timed out", map[int]notifyRecord{1: {gen: 1, uid: "a", version: 2, dropped: "poll timeout"}}, ClassNotificationDropped},
			{"VL: the generation stopped", map[int]notifyRecord{1: {gen: 1, uid: "a", version: 2, dropped: "context cancelled"},
				2: {gen: 2, uid: "a", version: 2, dropped: "not in the lister"}}, ClassNotificationDropped},
			{"a notification of it was enqueued", map[int]notifyRecord{1: {gen: 1, uid: "a", version: 2, dropped: "poll timeout"},
				2: {gen: 1, uid: "a", version: 2}}, ""},
			{"only an earlier version was dropped", map[int]notifyRecord{1: {gen: 1, uid: "a", version: 1, dropped: "poll timeout"},
				2: {gen: 1, uid: "a", version: 2}}, ""},
			{"another pod's notification was dropped", map[int]notifyRecord{1: {gen: 1, uid: "b", version: 2, dropped: "poll timeout"}}, ""},
		}
		for _, c := range cases {
			d.W.notifies = c.notifies
			if got := d.classify(f); got != c.want {
				t.Errorf("%s: classified %q, want %q", c.name, got, c.want)
			}
		}
		d.W.notifies = map[int]notifyRecord{1: {gen: 1, uid: "a", version: 2, dropped: "poll timeout"}}
		if got := d.classify(Finding{Check: "VK3", Message: f.Message}); got != "" {
			t.Errorf("another check with VL's message: classified %q", got)
		}
	})
}

// TestClassifyLateNotificationNegative: VM needs an earlier notification
// of another version accepted after the lost version's, and that older
// version written by updatePodStatus after it as the last write, or as
// the last before handleProviderError's overwrite (VG's).
func TestClassifyLateNotificationNegative(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := NewDriver()
		f := Finding{Check: "VK2", Message: "the provider's last status for pod c (pod-c), v2 Running, never reached the API, which holds v1 Running (VK2)"}
		late := map[int]notifyRecord{1: {gen: 1, uid: "c", version: 1, accepted: 3}, 2: {gen: 1, uid: "c", version: 2, accepted: 1}}
		inOrder := map[int]notifyRecord{1: {gen: 1, uid: "c", version: 1, accepted: 1}, 2: {gen: 1, uid: "c", version: 2, accepted: 3}}
		cases := []struct {
			name     string
			notifies map[int]notifyRecord
			writes   []statusWrite
			want     string
		}{
			{"nothing written", late, nil, ""},
			{"VM", late, []statusWrite{{"updatePodStatus", 2, 2}, {"updatePodStatus", 1, 4}}, ClassLateNotification},
			{"accepted in order (v2's write lost otherwise)", inOrder, []statusWrite{{"updatePodStatus", 1, 2}}, ""},
			{"the old version written before the late acceptance", late, []statusWrite{{"updatePodStatus", 1, 2}}, ""},
			{"VM, then VG's overwrite (vk-startup seed 1421)", late, []statusWrite{{"updatePodStatus", 1, 4}, {"handleProviderError", 0, 5}}, ClassLateNotification},
			{"handleProviderError's write alone after the late acceptance", late, []statusWrite{{"updatePodStatus", 1, 2}, {"handleProviderError", 0, 5}}, ""},
			{"handleProviderError's write only", late, []statusWrite{{"handleProviderError", 0, 5}}, ""},
			{"the late one was dropped", map[int]notifyRecord{1: {gen: 1, uid: "c", version: 1, dropped: "poll timeout"}, 2: {gen: 1, uid: "c", version: 2, accepted: 1}},
				[]statusWrite{{"updatePodStatus", 1, 4}}, ""},
			{"the late notification is another pod's", map[int]notifyRecord{1: {gen: 1, uid: "x", version: 1, accepted: 3}, 2: {gen: 1, uid: "c", version: 2, accepted: 1}},
				[]statusWrite{{"updatePodStatus", 1, 4}}, ""},
		}
		for _, c := range cases {
			d.W.notifies = c.notifies
			d.W.statusWrites["c"] = c.writes
			if got := d.classify(f); got != c.want {
				t.Errorf("%s: classified %q, want %q", c.name, got, c.want)
			}
		}
	})
}

// TestClassifySkipNegative: VN needs the controller's write of the lost
// version overwritten from outside, a later notification of it skipped as
// equal, and no update event of the pod after that in its generation.
func TestClassifySkipNegative(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := NewDriver()
		d.final = &endState{apiVersion: map[types.UID]int{"a": 0}}
		f := Finding{Check: "VK2", Message: "the provider's last status for pod a (pod-a), v1 Running, never reached the API, which holds v0 Running (VK2)"}
		skipped := map[int]notifyRecord{1: {gen: 1, uid: "a", version: 1, accepted: 1}, 2: {gen: 1, uid: "a", version: 1, accepted: 4}}
		written := []statusWrite{{"updatePodStatus", 1, 2}}
		cases := []struct {
			name     string
			notifies map[int]notifyRecord
			writes   []statusWrite
			event    int
			want     string
		}{
			{"VN", skipped, written, 3, ClassSkipNeverRechecked},
			{"an update event after the skip", skipped, written, 5, ""},
			{"no second notification", map[int]notifyRecord{1: {gen: 1, uid: "a", version: 1, accepted: 1}}, written, 0, ""},
			{"the second notification came before the write", map[int]notifyRecord{1: {gen: 1, uid: "a", version: 1, accepted: 1},
				2: {gen: 1, uid: "a", version: 1, accepted: 2}}, []statusWrite{{"updatePodStatus", 1, 3}}, 0, ""},
			{"the version was never written", skipped, []statusWrite{{"updatePodStatus", 0, 2}}, 0, ""},
			// handleProviderError overwrote it: VG, not VN.
			{"the last write is handleProviderError's", skipped, []statusWrite{{"updatePodStatus", 1, 2}, {"handleProviderError", 0, 3}}, 0, ClassErrorStatusOverwrites},
		}
		for _, c := range cases {
			d.W.notifies = c.notifies
			d.W.statusWrites["a"] = c.writes
			d.W.lastUpdateEvent = map[genUID]int{{1, "a"}: c.event}
			if got := d.classify(f); got != c.want {
				t.Errorf("%s: classified %q, want %q", c.name, got, c.want)
			}
		}
		d.W.notifies, d.W.statusWrites["a"], d.W.lastUpdateEvent = skipped, written, map[genUID]int{}
		d.final.apiVersion["a"] = 1
		if got := d.classify(f); got != "" {
			t.Errorf("the API holds the version: classified %q", got)
		}
	})
}

// TestClassifyDanglingAfterRestartNegative: VD on a pod that left the API
// needs a restart after its removal and every later sweep that listed it
// failed, with at least one later sweep.
func TestClassifyDanglingAfterRestartNegative(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := NewDriver()
		d.final = &endState{apiByName: map[string]types.UID{}, providerByName: map[string]types.UID{"db": "a"}}
		f := Finding{Check: "VK3", Message: "pod a (db) left the API but still runs in the provider at the end (VK3)"}
		listed := map[string]string{"0x1": "default/db"}
		sweepFailed := []danglingCall{{gen: 2, op: "provider.GetPods", outcome: callgate.OK}, {gen: 2, op: "provider.DeletePod", key: "default/db", outcome: callgate.Fail}}
		cases := []struct {
			name    string
			gen     int
			removed bool
			cleanup *cleanupCall
			dangled []danglingCall
			want    string
		}{
			{"VD", 2, true, nil, sweepFailed, ClassDanglingOnce},
			{"never removed by the API", 2, false, nil, sweepFailed, ""},
			{"no restart after the removal", 1, true, nil, []danglingCall{{gen: 1, op: "provider.GetPods", outcome: callgate.OK}}, ""},
			{"no sweep after the removal", 2, true, nil, []danglingCall{{gen: 1, op: "provider.GetPods", outcome: callgate.Fail}}, ""},
			{"a later sweep listed it and did not fail", 2, true, nil, []danglingCall{{gen: 2, op: "provider.GetPods", outcome: callgate.OK}}, ""},
			{"the last generation's informer cleanup", 2, true, &cleanupCall{gen: 2, op: "provider.DeletePod", outcome: callgate.Fail}, sweepFailed, ""},
			{"an earlier generation's cleanup failed", 2, true, &cleanupCall{gen: 1, op: "provider.DeletePod", outcome: callgate.Fail}, sweepFailed, ClassDanglingOnce},
		}
		// Every generation listed before the removal (event 5).
		d.W.watchFrom, d.W.removedAt = map[int]int{1: 2, 2: 9}, map[types.UID]int{"a": 5}
		for _, c := range cases {
			d.W.gen = c.gen
			d.W.removedGen = map[types.UID]int{}
			if c.removed {
				d.W.removedGen["a"] = 1
			}
			d.W.lastCleanup = map[string]cleanupCall{}
			if c.cleanup != nil {
				d.W.lastCleanup["default/db"] = *c.cleanup
			}
			d.W.danglingCalls = c.dangled
			d.W.podsGiven = map[int]map[string]string{2: listed}
			if got := d.classify(f); got != c.want {
				t.Errorf("%s: classified %q, want %q", c.name, got, c.want)
			}
		}
		// A later sweep whose list did not have it (the pod came after it).
		d.W.gen, d.W.removedGen["a"], d.W.lastCleanup = 3, 1, map[string]cleanupCall{}
		d.W.danglingCalls = append([]danglingCall{{gen: 2, op: "provider.GetPods", outcome: callgate.OK}},
			danglingCall{gen: 3, op: "provider.GetPods", outcome: callgate.Fail})
		d.W.podsGiven = map[int]map[string]string{2: {}}
		if got := d.classify(f); got != ClassDanglingOnce {
			t.Errorf("a sweep before the pod came and a failed one: classified %q", got)
		}
		// A later sweep that listed it and did not fail, then a failed one:
		// VD only if that sweep's lister held another UID under the name
		// (deleteDanglingPods compares names), not a, not none; and not
		// when the last sweep, too, listed it and its lister held nothing.
		d.W.podsGiven = map[int]map[string]string{2: listed}
		for _, c := range []struct {
			name string
			held map[int]map[string]types.UID
			last callgate.Outcome
			want string
		}{
			{"its lister held another UID", map[int]map[string]types.UID{2: {"default/db": "e"}}, callgate.Fail, ClassDanglingOnce},
			{"its lister held the pod itself", map[int]map[string]types.UID{2: {"default/db": "a"}}, callgate.Fail, ""},
			{"its lister held nothing of the name", map[int]map[string]types.UID{2: {}}, callgate.Fail, ""},
			{"another key held", map[int]map[string]types.UID{2: {"default/web": "e"}}, callgate.Fail, ""},
			{"the last sweep listed it, holding nothing", map[int]map[string]types.UID{2: {"default/db": "e"}, 3: {}}, callgate.OK, ""},
		} {
			d.W.sweepHeld = c.held
			d.W.danglingCalls = []danglingCall{{gen: 2, op: "provider.GetPods", outcome: callgate.OK},
				{gen: 3, op: "provider.GetPods", outcome: c.last}}
			if c.last == callgate.OK {
				d.W.podsGiven[3] = listed
			}
			if got := d.classify(f); got != c.want {
				t.Errorf("a sweep that listed it and did not fail, %s: classified %q, want %q", c.name, got, c.want)
			}
		}
	})
}

// TestClassifyDanglingRemovedInLastGeneration: VD for a pod removed in the
// last generation (2) before its informer listed: only its
// deleteDanglingPods could clean it up, and that failed.
func TestClassifyDanglingRemovedInLastGeneration(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := NewDriver()
		d.final = &endState{apiByName: map[string]types.UID{}, providerByName: map[string]types.UID{"db": "a"}}
		f := Finding{Check: "VK3", Message: "pod a (db) left the API but still runs in the provider at the end (VK3)"}
		d.W.gen, d.W.removedGen, d.W.removedAt = 2, map[types.UID]int{"a": 2}, map[types.UID]int{"a": 5}
		d.W.lastCleanup = map[string]cleanupCall{}
		d.W.danglingCalls = []danglingCall{{gen: 2, op: "provider.GetPods", outcome: callgate.Fail}}
		d.W.podsGiven = map[int]map[string]string{}
		for _, c := range []struct {
			name      string
			watchFrom map[int]int
			want      string
		}{
			{"removed before the last generation listed", map[int]int{1: 2, 2: 9}, ClassDanglingOnce},
			{"removed while the last generation never listed", map[int]int{1: 2}, ClassDanglingOnce},
			{"removed after the last generation listed", map[int]int{1: 2, 2: 4}, ""},
		} {
			d.W.watchFrom = c.watchFrom
			if got := d.classify(f); got != c.want {
				t.Errorf("%s: classified %q, want %q", c.name, got, c.want)
			}
		}
		d.W.watchFrom = map[int]int{1: 2, 2: 9}
		d.W.danglingCalls = []danglingCall{{gen: 2, op: "provider.GetPods", outcome: callgate.OK}}
		d.W.podsGiven = map[int]map[string]string{2: {"0x1": "default/db"}}
		if got := d.classify(f); got != "" {
			t.Errorf("removed before the last generation listed, whose sweep listed it and did not fail: classified %q", got)
		}
	})
}

// TestClassifyLostWithRunNegative: VO needs a matching notification
// accepted by a generation before the last, every other one accepted so
// or dropped, and nothing written from it.
func TestClassifyLostWithRunNegative(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := NewDriver()
		d.final = &endState{apiPhase: map[types.UID]v1.PodPhase{"a": v1.PodRunning}, apiVersion: map[types.UID]int{"a": 0}}
		d.W.gen = 2
		vk2 := Finding{Check: "VK2", Message: "the provider's last status for pod a (job), v1 Running, never reached the API, which holds v0 Pending (VK2)"}
		vk3 := Finding{Check: "VK3", Message: "the provider deleted pod a (job) by itself, but its API object was never deleted (VK3)"}
		cases := []struct {
			name     string
			notifies map[int]notifyRecord
			want     string
		}{
			{"never notified", nil, ""},
			{"VO", map[int]notifyRecord{1: {gen: 1, uid: "a", version: 1, deleting: true, accepted: 1}}, ClassLostWithRun},
			{"accepted by the last generation", map[int]notifyRecord{1: {gen: 2, uid: "a", version: 1, deleting: true, accepted: 1}}, ""},
			{"dropped (VL for VK2 and VK3, not VO)", map[int]notifyRecord{1: {gen: 1, uid: "a", version: 1, deleting: true, dropped: "context cancelled"}}, ClassNotificationDropped},
			{"one more notification to the last generation", map[int]notifyRecord{1: {gen: 1, uid: "a", version: 1, deleting: true, accepted: 1},
				2: {gen: 2, uid: "a", version: 1, deleting: true, accepted: 2}}, ""},
			{"VO, the other notification dropped (vk-swarm seed 12121)", map[int]notifyRecord{1: {gen: 1, uid: "a", version: 1, deleting: true, accepted: 1},
				2: {gen: 2, uid: "a", version: 1, deleting: true, dropped: "poll timeout"}}, ClassLostWithRun},
			{"dropped, and the other accepted by the last generation", map[int]notifyRecord{1: {gen: 1, uid: "a", version: 1, deleting: true, dropped: "poll timeout"},
				2: {gen: 2, uid: "a", version: 1, deleting: true, accepted: 2}}, ""},
		}
		for _, c := range cases {
			d.W.notifies = c.notifies
			want2, want3 := c.want, c.want
			if got := d.classify(vk2); got != want2 {
				t.Errorf("VK2 %s: classified %q, want %q", c.name, got, want2)
			}
			d.W.deletingNotified["a"] = true
			if got := d.classify(vk3); got != want3 {
				t.Errorf("VK3 %s: classified %q, want %q", c.name, got, want3)
			}
		}
		d.W.notifies = map[int]notifyRecord{1: {gen: 1, uid: "a", version: 1, deleting: true, accepted: 1}}
		d.W.statusWrites["a"] = []statusWrite{{"updatePodStatus", 1, 2}}
		if got := d.classify(vk2); got == ClassLostWithRun {
			t.Errorf("VK2 with the version written: classified VO")
		}
		d.W.statusWrites["a"] = nil
		d.W.deleteCaller["a"] = "updatePodStatus"
		if got := d.classify(vk3); got != "" {
			t.Errorf("VK3 with a controller delete: classified %q", got)
		}
		d.W.deleteCaller["a"] = ""
		d.W.notifies = map[int]notifyRecord{1: {gen: 1, uid: "a", version: 1, accepted: 1}}
		if got := d.classify(vk3); got != "" {
			t.Errorf("VK3 without a deleting notification: classified %q", got)
		}
	})
}
