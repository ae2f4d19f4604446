package explain

import (
	"testing"

	"github.com/podsim/podsim/realvk/callgate"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// TestClassifyNegative: each class's predicate rejects findings that look
// like it but are not it.
func TestClassifyNegative(t *testing.T) {
	d := newFacts()
	d.End = &End{APIByName: map[string]types.UID{"db": "b", "web": "w"},
		ProviderByName: map[string]types.UID{"db": "a", "web": "w"}}
	d.DeleteCaller["b"] = "deletePodsFromKubernetesHandler"
	d.DeleteCaller["c"] = "updatePodStatus"
	d.DeletingNotified["d"] = true
	cases := []struct {
		f    Finding
		want string
	}{
		{Finding{Check: "VK6", Message: "pod b (db) is live in the API but does not run in the provider at the end (VK6)"}, ClassNameKeyed},
		{Finding{Check: "VK3", Message: "pod a (db) left the API but still runs in the provider at the end (VK3)"}, ClassNameKeyed},
		// Same name, same UID in both: not VA.
		{Finding{Check: "VK6", Message: "pod w (web) is live in the API but does not run in the provider at the end (VK6)"}, ""},
		// Nothing under the name in the provider: not VA.
		{Finding{Check: "VK6", Message: "pod x (job) is live in the API but does not run in the provider at the end (VK6)"}, ""},
		// Another check on a VA-shaped state: not VA.
		{Finding{Check: "VK2", Message: "the provider's last status for pod b (db), v2 Running, never reached the API"}, ""},
		{Finding{Check: "VK1", Message: `the controller deleted pod c (c) from the API with UID precondition "", not its own (VK1)`}, ClassNoPrecondition},
		// A precondition-less delete from another caller: not VB.
		{Finding{Check: "VK1", Message: `the controller deleted pod b (db) from the API with UID precondition "", not its own (VK1)`}, ""},
		// A wrong (not empty) precondition: not VB.
		{Finding{Check: "VK1", Message: `the controller deleted pod c (c) from the API with UID precondition "z", not its own (VK1)`}, ""},
		// Deletion notified but no status written instead: not VC.
		{Finding{Check: "VK3", Message: "the provider deleted pod d (d) by itself, but its API object was never deleted (VK3)"}, ""},
	}
	for _, c := range cases {
		if got := d.classify(c.f); got != c.want {
			t.Errorf("classify(%s %q) = %q, want %q", c.f.Check, c.f.Message, got, c.want)
		}
	}
	d.StatusInsteadOfDelete["d"] = true
	vc := Finding{Check: "VK3", Message: "the provider deleted pod d (d) by itself, but its API object was never deleted (VK3)"}
	if got := d.classify(vc); got != ClassStatusInsteadOfDelete {
		t.Errorf("VC not classified: %q", got)
	}
	d.DeleteCaller["d"] = "updatePodStatus"
	if got := d.classify(vc); got != "" {
		t.Errorf("VC with a controller delete of d classified %q", got)
	}
}

// TestClassifyDanglingNegative: VD needs a failed cleanup call in every
// generation that ran deleteDanglingPods.
func TestClassifyDanglingNegative(t *testing.T) {
	d := newFacts()
	f := Finding{Check: "VK5", Message: "provider pod d has no API object and was never deleted (dangling) (VK5)"}
	if got := d.classify(f); got != "" {
		t.Errorf("no cleanup ran, classified %q", got)
	}
	d.DanglingCalls = []DanglingCall{{Gen: 1, Op: "provider.GetPods", Outcome: callgate.OK},
		{Gen: 1, Op: "provider.DeletePod", Key: "default/pod-d", Outcome: callgate.Fail}}
	if got := d.classify(f); got != ClassDanglingOnce {
		t.Errorf("failed DeletePod: classified %q", got)
	}
	d.DanglingCalls = append(d.DanglingCalls, DanglingCall{Gen: 2, Op: "provider.GetPods", Outcome: callgate.OK})
	if got := d.classify(f); got != "" {
		t.Errorf("a second generation's cleanup did not fail, classified %q", got)
	}
	d.DanglingCalls = []DanglingCall{{Gen: 1, Op: "provider.GetPods", Outcome: callgate.OK},
		{Gen: 1, Op: "provider.DeletePod", Key: "default/pod-e", Outcome: callgate.Fail}}
	if got := d.classify(f); got != "" {
		t.Errorf("another pod's DeletePod failed, classified %q", got)
	}
}

// TestClassifyReadyAndStaleNegative: VE needs the cancel and the
// cache-sync error; VF needs the forced-delete caller with the provider
// still running the pod.
func TestClassifyReadyAndStaleNegative(t *testing.T) {
	d := newFacts()
	ve := Finding{Check: "VK7", Message: "controller start 1 never became Ready (VK7)"}
	if got := d.classify(ve); got != "" {
		t.Errorf("start never cancelled, classified %q", got)
	}
	d.Cancelled[1] = true
	d.DoneErr[1] = "some other error"
	if got := d.classify(ve); got != "" {
		t.Errorf("another Err, classified %q", got)
	}
	d.DoneErr[1] = "failed to wait for caches to sync"
	if got := d.classify(ve); got != ClassCancelledBeforeReady {
		t.Errorf("VE not classified: %q", got)
	}
	d.End = &End{}
	vf := Finding{Check: "VK3", Message: "the controller removed pod c (web) from the API at 1.4s while its status said Running, before the provider reported it terminal and before its grace of 5s (deleted at 900ms) expired (VK3)"}
	if got := d.classify(vf); got != "" {
		t.Errorf("no delete recorded, classified %q", got)
	}
	d.DeletedWhileRunning["c"] = "updatePodStatus"
	if got := d.classify(vf); got != "" {
		t.Errorf("another caller, classified %q", got)
	}
	d.DeletedWhileRunning["c"] = "deletePodsFromKubernetesHandler"
	if got := d.classify(vf); got != ClassStaleNotRunning {
		t.Errorf("VF not classified: %q", got)
	}
}

// TestClassifyOverwrittenNegative: VG needs the lost version written by
// updatePodStatus and then overwritten by handleProviderError as the last
// write.
func TestClassifyOverwrittenNegative(t *testing.T) {
	d := newFacts()
	f := Finding{Check: "VK2", Message: "the provider's last status for pod a (pod-a), v2 Running, never reached the API, which holds v0 Pending"}
	cases := []struct {
		writes []StatusWrite
		want   string
	}{
		{nil, ""},
		{[]StatusWrite{{Caller: "updatePodStatus", Version: 2, Seq: 0}, {Caller: "handleProviderError", Version: 0, Seq: 0}}, ClassErrorStatusOverwrites},
		// v2 never written: the status was lost before the API, not overwritten.
		{[]StatusWrite{{Caller: "updatePodStatus", Version: 1, Seq: 0}, {Caller: "handleProviderError", Version: 0, Seq: 0}}, ""},
		// Overwritten by handleProviderError, but the last write is the controller's v1 after it.
		{[]StatusWrite{{Caller: "updatePodStatus", Version: 2, Seq: 0}, {Caller: "handleProviderError", Version: 0, Seq: 0}, {Caller: "updatePodStatus", Version: 1, Seq: 0}}, ""},
		// handleProviderError wrote before v2 reached the API.
		{[]StatusWrite{{Caller: "handleProviderError", Version: 0, Seq: 0}, {Caller: "updatePodStatus", Version: 2, Seq: 0}}, ""},
	}
	for _, c := range cases {
		d.StatusWrites["a"] = c.writes
		if got := d.classify(f); got != c.want {
			t.Errorf("writes %v: classified %q, want %q", c.writes, got, c.want)
		}
	}
	d.StatusWrites["a"] = []StatusWrite{{Caller: "updatePodStatus", Version: 2, Seq: 0}, {Caller: "handleProviderError", Version: 0, Seq: 0}}
	if got := d.classify(Finding{Check: "VK3", Message: f.Message}); got != "" {
		t.Errorf("another check with VG's message classified %q", got)
	}
}

// TestClassifyTerminalNegative: VH needs the deletion notified, no
// controller delete, no status written after it (that is VC), and a
// terminal API phase at the end.
func TestClassifyTerminalNegative(t *testing.T) {
	d := newFacts()
	d.End = &End{APIPhase: map[types.UID]v1.PodPhase{"b": v1.PodSucceeded}}
	f := Finding{Check: "VK3", Message: "the provider deleted pod b (pod-b) by itself, but its API object was never deleted (VK3)"}
	if got := d.classify(f); got != "" {
		t.Errorf("deletion never notified, classified %q", got)
	}
	d.DeletingNotified["b"] = true
	if got := d.classify(f); got != ClassTerminalNotDeleted {
		t.Errorf("VH not classified: %q", got)
	}
	d.End.APIPhase["b"] = v1.PodRunning
	if got := d.classify(f); got != "" {
		t.Errorf("API phase Running, classified %q", got)
	}
	d.End.APIPhase["b"] = v1.PodFailed
	d.DeleteCaller["b"] = "updatePodStatus"
	if got := d.classify(f); got != "" {
		t.Errorf("the controller deleted b, classified %q", got)
	}
	d.DeleteCaller["b"] = ""
	d.StatusInsteadOfDelete["b"] = true
	if got := d.classify(f); got != ClassStatusInsteadOfDelete {
		t.Errorf("a status written after the deletion is VC, classified %q", got)
	}
}

// TestClassifyRemovedByNameNegative: VK3's "removed although nobody had
// deleted it" is VB only when updatePodStatus made the controller's last
// delete of the pod; another caller's, or none, stays unexplained.
func TestClassifyRemovedByNameNegative(t *testing.T) {
	d := newFacts()
	d.End = &End{}
	f := Finding{Check: "VK3", Message: "the controller removed pod d (db) from the API although nobody had deleted it (VK3)"}
	for caller, want := range map[string]string{"updatePodStatus": ClassNoPrecondition, "deletePodsFromKubernetesHandler": "", "": ""} {
		d.DeleteCaller["d"] = caller
		if got := d.classify(f); got != want {
			t.Errorf("removed by %q: classified %q, want %q", caller, got, want)
		}
	}
}

// TestClassifyDroppedDeletionNegative: VL for a provider deletion never
// propagated (VK3) needs the controller never to have deleted the pod nor
// written its status after the deletion, and every notification of the
// deletion dropped by enqueuePodStatusUpdate.
func TestClassifyDroppedDeletionNegative(t *testing.T) {
	f := Finding{Check: "VK3", Message: "the provider deleted pod c (web) by itself, but its API object was never deleted (VK3)"}
	cases := []struct {
		name     string
		notifies []Notify
		caller   string
		instead  bool
		want     string
	}{
		{"dropped", []Notify{{Gen: 4, UID: "c", Deleting: true, Dropped: "not in the lister"}}, "", false, ClassNotificationDropped},
		{"no notification", nil, "", false, ""},
		{"accepted by the last generation", []Notify{{Gen: 5, UID: "c", Deleting: true, Accepted: 3}}, "", false, ""},
		{"one dropped, one accepted", []Notify{{Gen: 4, UID: "c", Deleting: true, Dropped: "not in the lister"},
			{Gen: 5, UID: "c", Deleting: true, Accepted: 3}}, "", false, ""},
		{"only a status notification dropped", []Notify{{Gen: 4, UID: "c", Dropped: "not in the lister"}}, "", false, ""},
		{"another pod's deletion dropped", []Notify{{Gen: 4, UID: "d", Deleting: true, Dropped: "not in the lister"}}, "", false, ""},
		{"the controller deleted it", []Notify{{Gen: 4, UID: "c", Deleting: true, Dropped: "not in the lister"}},
			"updatePodStatus", false, ""},
		{"a status written instead is VC", []Notify{{Gen: 4, UID: "c", Deleting: true, Dropped: "not in the lister"}},
			"", true, ClassStatusInsteadOfDelete},
	}
	for _, c := range cases {
		d := newFacts()
		d.Gen = 5
		d.End = &End{APIPhase: map[types.UID]v1.PodPhase{"c": v1.PodPending}}
		for i, n := range c.notifies {
			d.Notifies[i+1] = n
		}
		d.DeleteCaller["c"] = c.caller
		d.StatusInsteadOfDelete["c"] = c.instead
		if got := d.classify(f); got != c.want {
			t.Errorf("%s: classified %q, want %q", c.name, got, c.want)
		}
	}
}
