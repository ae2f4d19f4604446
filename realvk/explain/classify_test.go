package explain

import (
	"testing"

	"github.com/podsim/podsim/realvk/callgate"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Negative tests of VI–VO (VD for a pod that left the API:
// dangling_test.go; the losses after an outside edit and VP:
// classify_edit_test.go): each predicate rejects the look-alikes that
// lack a link of its causal chain.

// TestClassifyCleanupNegative: VI needs the cleanup's last provider call
// to be a not-found GetPod for the very UID the provider runs, made when
// the API had no object of the name, and no later successful dangling
// cleanup.
func TestClassifyCleanupNegative(t *testing.T) {
	d := newFacts()
	d.End = &End{APIByName: map[string]types.UID{}, ProviderByName: map[string]types.UID{"pod-a": "a"}}
	f := Finding{Check: "VK3", Message: "pod a (pod-a) left the API but still runs in the provider at the end (VK3)"}
	vi := CleanupCall{Gen: 1, Op: "provider.GetPod", Outcome: callgate.Missing, ProviderUID: "a"}
	cases := []struct {
		name    string
		last    *CleanupCall
		dangled []DanglingCall
		want    string
	}{
		{"no cleanup call", nil, nil, ""},
		{"VI", &vi, nil, ClassCleanupTrustsGetPod},
		{"the GetPod failed (retried, then lost to a stop)", &CleanupCall{Gen: 1, Op: "provider.GetPod", Outcome: callgate.Fail, ProviderUID: "a"}, nil, ""},
		{"the last call was a failed DeletePod", &CleanupCall{Gen: 1, Op: "provider.DeletePod", Outcome: callgate.Fail, ProviderUID: "a"}, nil, ""},
		{"the provider held another UID then", &CleanupCall{Gen: 1, Op: "provider.GetPod", Outcome: callgate.Missing, ProviderUID: "z"}, nil, ""},
		{"the provider held nothing then", &CleanupCall{Gen: 1, Op: "provider.GetPod", Outcome: callgate.Missing}, nil, ""},
		{"the API had an object of the name then", &CleanupCall{Gen: 1, Op: "provider.GetPod", Outcome: callgate.Missing, ProviderUID: "a", APIHasName: true}, nil, ""},
		{"a later generation's dangling cleanup ran without failing", &vi,
			[]DanglingCall{{Gen: 2, Op: "provider.GetPods", Outcome: callgate.OK}}, ""},
		{"a later generation's DeletePod of it failed", &vi,
			[]DanglingCall{{Gen: 2, Op: "provider.GetPods", Outcome: callgate.OK}, {Gen: 2, Op: "provider.DeletePod", Key: "default/pod-a", Outcome: callgate.Fail}}, ClassCleanupTrustsGetPod},
		{"an earlier generation's dangling cleanup ran", &vi,
			[]DanglingCall{{Gen: 1, Op: "provider.GetPods", Outcome: callgate.OK}}, ClassCleanupTrustsGetPod},
	}
	for _, c := range cases {
		delete(d.LastCleanup, "default/pod-a")
		if c.last != nil {
			d.LastCleanup["default/pod-a"] = *c.last
		}
		d.DanglingCalls = c.dangled
		if got := d.classify(f); got != c.want {
			t.Errorf("%s: classified %q, want %q", c.name, got, c.want)
		}
	}
	d.LastCleanup["default/pod-a"] = vi
	d.DanglingCalls = nil
	d.End.APIByName["pod-a"] = "b"
	if got := d.classify(f); got == ClassCleanupTrustsGetPod {
		t.Errorf("an API object named pod-a at the end: classified VI")
	}
	d.End.APIByName = map[string]types.UID{}
	d.End.ProviderByName["pod-a"] = "z"
	if got := d.classify(f); got != "" {
		t.Errorf("another UID runs under the name at the end: classified %q", got)
	}
	d.End.ProviderByName["pod-a"] = "a"
	if got := d.classify(Finding{Check: "VK6", Message: f.Message}); got != "" {
		t.Errorf("another check with VI's message: classified %q", got)
	}
}

// TestClassifyStatusByNameNegative: VJ needs every item left to be in
// the status queue and each to match a name whose last status write was
// updatePodStatus's of another UID's status, rejected as a Conflict.
func TestClassifyStatusByNameNegative(t *testing.T) {
	d := newFacts()
	f := Finding{Check: "VK7", Message: "1 items were left in the controller's queues at the end: they never drained (VK7)"}
	wrongUID := StatusAttempt{Caller: "updatePodStatus", UID: "a", APIUID: "b", Conflict: true}
	cases := []struct {
		name          string
		writes        map[string]StatusAttempt
		status, other int
		want          string
		runs          map[string]int
	}{
		{"nothing recorded", nil, 1, 0, "", nil},
		{"VJ", map[string]StatusAttempt{"default/db": wrongUID}, 1, 0, ClassStatusByName, nil},
		{"the item is in another queue", map[string]StatusAttempt{"default/db": wrongUID}, 0, 1, "", nil},
		{"an item in another queue too", map[string]StatusAttempt{"default/db": wrongUID}, 1, 1, "", nil},
		{"a conflict on the pod's own UID (a stale resource version)",
			map[string]StatusAttempt{"default/db": {Caller: "updatePodStatus", UID: "b", APIUID: "b", Conflict: true}}, 1, 0, "", nil},
		{"another UID's status that went through",
			map[string]StatusAttempt{"default/db": {Caller: "updatePodStatus", UID: "a", APIUID: "b"}}, 1, 0, "", nil},
		{"handleProviderError's write",
			map[string]StatusAttempt{"default/db": {Caller: "handleProviderError", UID: "a", APIUID: "b", Conflict: true}}, 1, 0, "", nil},
		{"two such names for one item",
			map[string]StatusAttempt{"default/db": wrongUID, "default/web": wrongUID}, 1, 0, "", nil},
		{"two such names, one of whose handler ran again and drained (vk-swarm seed 27,898)",
			map[string]StatusAttempt{"default/db": wrongUID, "default/web": wrongUID}, 1, 0, ClassStatusByName, map[string]int{"default/db": 1}},
		{"one such name whose handler ran again",
			map[string]StatusAttempt{"default/db": wrongUID}, 1, 0, "", map[string]int{"default/db": 1}},
	}
	for _, c := range cases {
		d.StatusRuns = c.runs
		d.LastStatusWrite = c.writes
		d.StatusQueueLeft, d.OtherQueuesLeft = c.status, c.other
		if got := d.classify(f); got != c.want {
			t.Errorf("%s: classified %q, want %q", c.name, got, c.want)
		}
	}
	d.LastStatusWrite, d.StatusRuns = map[string]StatusAttempt{"default/db": wrongUID}, nil
	d.StatusQueueLeft, d.OtherQueuesLeft = 1, 0
	d.Gen = 1
	if got := d.classify(f); got != "" {
		t.Errorf("the write of a generation before the last: classified %q", got)
	}
	d.Gen = 0
	if got := d.classify(Finding{Check: "VK7", Message: "controller start 1 never became Ready (VK7)"}); got != "" {
		t.Errorf("another VK7 with VJ's state: classified %q", got)
	}
}

// TestClassifyDroppedNotificationNegative: VL needs the lost version to
// have been notified, and every notification of it dropped by
// enqueuePodStatusUpdate.
func TestClassifyDroppedNotificationNegative(t *testing.T) {
	d := newFacts()
	f := Finding{Check: "VK2", Message: "the provider's last status for pod a (pod-a), v2 Failed, never reached the API, which holds v0 Pending (VK2)"}
	cases := []struct {
		name     string
		notifies map[int]Notify
		want     string
	}{
		{"never notified", nil, ""},
		{"VL: the poll timed out", map[int]Notify{1: {Gen: 1, UID: "a", Version: 2, Dropped: "poll timeout"}}, ClassNotificationDropped},
		{"VL: the generation stopped", map[int]Notify{1: {Gen: 1, UID: "a", Version: 2, Dropped: "context cancelled"},
			2: {Gen: 2, UID: "a", Version: 2, Dropped: "not in the lister"}}, ClassNotificationDropped},
		{"a notification of it was enqueued", map[int]Notify{1: {Gen: 1, UID: "a", Version: 2, Dropped: "poll timeout"},
			2: {Gen: 1, UID: "a", Version: 2}}, ""},
		{"only an earlier version was dropped", map[int]Notify{1: {Gen: 1, UID: "a", Version: 1, Dropped: "poll timeout"},
			2: {Gen: 1, UID: "a", Version: 2}}, ""},
		{"another pod's notification was dropped", map[int]Notify{1: {Gen: 1, UID: "b", Version: 2, Dropped: "poll timeout"}}, ""},
	}
	for _, c := range cases {
		d.Notifies = c.notifies
		if got := d.classify(f); got != c.want {
			t.Errorf("%s: classified %q, want %q", c.name, got, c.want)
		}
	}
	d.Notifies = map[int]Notify{1: {Gen: 1, UID: "a", Version: 2, Dropped: "poll timeout"}}
	if got := d.classify(Finding{Check: "VK3", Message: f.Message}); got != "" {
		t.Errorf("another check with VL's message: classified %q", got)
	}
}

// TestClassifyLateNotificationNegative: VM needs an earlier notification
// of another version accepted after the lost version's, and that older
// version written by updatePodStatus after it as the last write, or as
// the last before handleProviderError's overwrite (VG's).
func TestClassifyLateNotificationNegative(t *testing.T) {
	d := newFacts()
	f := Finding{Check: "VK2", Message: "the provider's last status for pod c (pod-c), v2 Running, never reached the API, which holds v1 Running (VK2)"}
	late := map[int]Notify{1: {Gen: 1, UID: "c", Version: 1, Accepted: 3}, 2: {Gen: 1, UID: "c", Version: 2, Accepted: 1}}
	inOrder := map[int]Notify{1: {Gen: 1, UID: "c", Version: 1, Accepted: 1}, 2: {Gen: 1, UID: "c", Version: 2, Accepted: 3}}
	cases := []struct {
		name     string
		notifies map[int]Notify
		writes   []StatusWrite
		want     string
	}{
		{"nothing written", late, nil, ""},
		{"VM", late, []StatusWrite{{Caller: "updatePodStatus", Version: 2, Seq: 2}, {Caller: "updatePodStatus", Version: 1, Seq: 4}}, ClassLateNotification},
		{"accepted in order (v2's write lost otherwise)", inOrder, []StatusWrite{{Caller: "updatePodStatus", Version: 1, Seq: 2}}, ""},
		{"the old version written before the late acceptance", late, []StatusWrite{{Caller: "updatePodStatus", Version: 1, Seq: 2}}, ""},
		{"VM, then VG's overwrite (vk-startup seed 1421)", late, []StatusWrite{{Caller: "updatePodStatus", Version: 1, Seq: 4}, {Caller: "handleProviderError", Version: 0, Seq: 5}}, ClassLateNotification},
		{"handleProviderError's write alone after the late acceptance", late, []StatusWrite{{Caller: "updatePodStatus", Version: 1, Seq: 2}, {Caller: "handleProviderError", Version: 0, Seq: 5}}, ""},
		{"handleProviderError's write only", late, []StatusWrite{{Caller: "handleProviderError", Version: 0, Seq: 5}}, ""},
		{"the late one was dropped", map[int]Notify{1: {Gen: 1, UID: "c", Version: 1, Dropped: "poll timeout"}, 2: {Gen: 1, UID: "c", Version: 2, Accepted: 1}},
			[]StatusWrite{{Caller: "updatePodStatus", Version: 1, Seq: 4}}, ""},
		{"the late notification is another pod's", map[int]Notify{1: {Gen: 1, UID: "x", Version: 1, Accepted: 3}, 2: {Gen: 1, UID: "c", Version: 2, Accepted: 1}},
			[]StatusWrite{{Caller: "updatePodStatus", Version: 1, Seq: 4}}, ""},
	}
	for _, c := range cases {
		d.Notifies = c.notifies
		d.StatusWrites["c"] = c.writes
		if got := d.classify(f); got != c.want {
			t.Errorf("%s: classified %q, want %q", c.name, got, c.want)
		}
	}
}

// TestClassifySkipNegative: VN needs the controller's write of the lost
// version overwritten from outside, a later notification of it skipped as
// equal, and no update event of the pod after that in its generation.
func TestClassifySkipNegative(t *testing.T) {
	d := newFacts()
	d.End = &End{APIVersion: map[types.UID]int{"a": 0}}
	f := Finding{Check: "VK2", Message: "the provider's last status for pod a (pod-a), v1 Running, never reached the API, which holds v0 Running (VK2)"}
	skipped := map[int]Notify{1: {Gen: 1, UID: "a", Version: 1, Accepted: 1}, 2: {Gen: 1, UID: "a", Version: 1, Accepted: 4}}
	written := []StatusWrite{{Caller: "updatePodStatus", Version: 1, Seq: 2}}
	cases := []struct {
		name     string
		notifies map[int]Notify
		writes   []StatusWrite
		event    int
		want     string
	}{
		{"VN", skipped, written, 3, ClassSkipNeverRechecked},
		{"an update event after the skip", skipped, written, 5, ""},
		{"no second notification", map[int]Notify{1: {Gen: 1, UID: "a", Version: 1, Accepted: 1}}, written, 0, ""},
		{"the second notification came before the write", map[int]Notify{1: {Gen: 1, UID: "a", Version: 1, Accepted: 1},
			2: {Gen: 1, UID: "a", Version: 1, Accepted: 2}}, []StatusWrite{{Caller: "updatePodStatus", Version: 1, Seq: 3}}, 0, ""},
		{"the version was never written", skipped, []StatusWrite{{Caller: "updatePodStatus", Version: 0, Seq: 2}}, 0, ""},
		// handleProviderError overwrote it: VG, not VN.
		{"the last write is handleProviderError's", skipped, []StatusWrite{{Caller: "updatePodStatus", Version: 1, Seq: 2}, {Caller: "handleProviderError", Version: 0, Seq: 3}}, 0, ClassErrorStatusOverwrites},
	}
	for _, c := range cases {
		d.Notifies = c.notifies
		d.StatusWrites["a"] = c.writes
		d.LastUpdateEvent = map[GenUID]int{{Gen: 1, UID: "a"}: c.event}
		if got := d.classify(f); got != c.want {
			t.Errorf("%s: classified %q, want %q", c.name, got, c.want)
		}
	}
	d.Notifies, d.StatusWrites["a"], d.LastUpdateEvent = skipped, written, map[GenUID]int{}
	d.End.APIVersion["a"] = 1
	if got := d.classify(f); got != "" {
		t.Errorf("the API holds the version: classified %q", got)
	}
}

// TestClassifyLostWithRunNegative: VO needs a matching notification
// accepted by a generation before the last, every other one accepted so
// or dropped, and nothing written from it.
func TestClassifyLostWithRunNegative(t *testing.T) {
	d := newFacts()
	d.End = &End{APIPhase: map[types.UID]v1.PodPhase{"a": v1.PodRunning}, APIVersion: map[types.UID]int{"a": 0}}
	d.Gen = 2
	vk2 := Finding{Check: "VK2", Message: "the provider's last status for pod a (job), v1 Running, never reached the API, which holds v0 Pending (VK2)"}
	vk3 := Finding{Check: "VK3", Message: "the provider deleted pod a (job) by itself, but its API object was never deleted (VK3)"}
	cases := []struct {
		name     string
		notifies map[int]Notify
		want     string
	}{
		{"never notified", nil, ""},
		{"VO", map[int]Notify{1: {Gen: 1, UID: "a", Version: 1, Deleting: true, Accepted: 1}}, ClassLostWithRun},
		{"accepted by the last generation", map[int]Notify{1: {Gen: 2, UID: "a", Version: 1, Deleting: true, Accepted: 1}}, ""},
		{"dropped (VL for VK2 and VK3, not VO)", map[int]Notify{1: {Gen: 1, UID: "a", Version: 1, Deleting: true, Dropped: "context cancelled"}}, ClassNotificationDropped},
		{"one more notification to the last generation", map[int]Notify{1: {Gen: 1, UID: "a", Version: 1, Deleting: true, Accepted: 1},
			2: {Gen: 2, UID: "a", Version: 1, Deleting: true, Accepted: 2}}, ""},
		{"VO, the other notification dropped (vk-swarm seed 12121)", map[int]Notify{1: {Gen: 1, UID: "a", Version: 1, Deleting: true, Accepted: 1},
			2: {Gen: 2, UID: "a", Version: 1, Deleting: true, Dropped: "poll timeout"}}, ClassLostWithRun},
		{"dropped, and the other accepted by the last generation", map[int]Notify{1: {Gen: 1, UID: "a", Version: 1, Deleting: true, Dropped: "poll timeout"},
			2: {Gen: 2, UID: "a", Version: 1, Deleting: true, Accepted: 2}}, ""},
	}
	for _, c := range cases {
		d.Notifies = c.notifies
		want2, want3 := c.want, c.want
		if got := d.classify(vk2); got != want2 {
			t.Errorf("VK2 %s: classified %q, want %q", c.name, got, want2)
		}
		d.DeletingNotified["a"] = true
		if got := d.classify(vk3); got != want3 {
			t.Errorf("VK3 %s: classified %q, want %q", c.name, got, want3)
		}
	}
	d.Notifies = map[int]Notify{1: {Gen: 1, UID: "a", Version: 1, Deleting: true, Accepted: 1}}
	d.StatusWrites["a"] = []StatusWrite{{Caller: "updatePodStatus", Version: 1, Seq: 2}}
	if got := d.classify(vk2); got == ClassLostWithRun {
		t.Errorf("VK2 with the version written: classified VO")
	}
	d.StatusWrites["a"] = nil
	d.DeleteCaller["a"] = "updatePodStatus"
	if got := d.classify(vk3); got != "" {
		t.Errorf("VK3 with a controller delete: classified %q", got)
	}
	d.DeleteCaller["a"] = ""
	d.Notifies = map[int]Notify{1: {Gen: 1, UID: "a", Version: 1, Accepted: 1}}
	if got := d.classify(vk3); got != "" {
		t.Errorf("VK3 without a deleting notification: classified %q", got)
	}
}

// Finding is a finding as the classifier is asked about it.
type Finding struct{ Check, Message string }

// newFacts is the facts of a run that has not started: no generation, no
// evidence, no end state.
func newFacts() *Facts {
	return &Facts{Evidence: NewEvidence(), WatchFrom: map[int]int{}, Ready: map[int]bool{}}
}

// classify is Classify of f's check and message.
func (ev *Facts) classify(f Finding) string { return ev.Classify(f.Check, f.Message) }
