package explain

import (
	"testing"

	"github.com/podsim/podsim/realvk/callgate"
	"k8s.io/apimachinery/pkg/types"
)

// Negative tests of VD for a pod that left the API (VK3 "left the API but
// still runs in the provider"): a restart after the removal, and every
// later sweep failed or could not see the pod.

// danglingAfterRestart is the world of VD's negative tests for a pod
// that left the API: pod a named db runs in the provider at the end and
// no API object is named db; every generation listed before the removal
// (event 5). listed is a sweep's list that has default/db.
func danglingAfterRestart() (d *Facts, f Finding, listed map[string]string) {
	d = newFacts()
	d.End = &End{APIByName: map[string]types.UID{}, ProviderByName: map[string]types.UID{"db": "a"}}
	f = Finding{Check: "VK3", Message: "pod a (db) left the API but still runs in the provider at the end (VK3)"}
	d.WatchFrom, d.RemovedAt = map[int]int{1: 2, 2: 9}, map[types.UID]int{"a": 5}
	return d, f, map[string]string{"0x1": "default/db"}
}

// TestClassifyDanglingAfterRestartNegative: VD on a pod that left the API
// needs a restart after its removal and every later sweep that listed it
// failed, with at least one later sweep.
func TestClassifyDanglingAfterRestartNegative(t *testing.T) {
	d, f, listed := danglingAfterRestart()
	sweepFailed := []DanglingCall{{Gen: 2, Op: "provider.GetPods", Outcome: callgate.OK}, {Gen: 2, Op: "provider.DeletePod", Key: "default/db", Outcome: callgate.Fail}}
	cases := []struct {
		name    string
		gen     int
		removed bool
		cleanup *CleanupCall
		dangled []DanglingCall
		want    string
	}{
		{"VD", 2, true, nil, sweepFailed, ClassDanglingOnce},
		{"never removed by the API", 2, false, nil, sweepFailed, ""},
		{"no restart after the removal", 1, true, nil, []DanglingCall{{Gen: 1, Op: "provider.GetPods", Outcome: callgate.OK}}, ""},
		{"no sweep after the removal", 2, true, nil, []DanglingCall{{Gen: 1, Op: "provider.GetPods", Outcome: callgate.Fail}}, ""},
		{"a later sweep listed it and did not fail", 2, true, nil, []DanglingCall{{Gen: 2, Op: "provider.GetPods", Outcome: callgate.OK}}, ""},
		{"the last generation's informer cleanup", 2, true, &CleanupCall{Gen: 2, Op: "provider.DeletePod", Outcome: callgate.Fail}, sweepFailed, ""},
		{"an earlier generation's cleanup failed", 2, true, &CleanupCall{Gen: 1, Op: "provider.DeletePod", Outcome: callgate.Fail}, sweepFailed, ClassDanglingOnce},
	}
	for _, c := range cases {
		d.Gen = c.gen
		d.RemovedGen = map[types.UID]int{}
		if c.removed {
			d.RemovedGen["a"] = 1
		}
		d.LastCleanup = map[string]CleanupCall{}
		if c.cleanup != nil {
			d.LastCleanup["default/db"] = *c.cleanup
		}
		d.DanglingCalls = c.dangled
		d.PodsGiven = map[int]map[string]string{2: listed}
		if got := d.classify(f); got != c.want {
			t.Errorf("%s: classified %q, want %q", c.name, got, c.want)
		}
	}
}

// TestClassifyDanglingAfterRestartLaterSweeps: VD on a pod that left the
// API in generation 1, the controller in generation 3, no informer
// cleanup: the sweeps after the removal, one at least, each failed, or
// listed no default/db, or listed it while its lister held another UID
// under the name.
func TestClassifyDanglingAfterRestartLaterSweeps(t *testing.T) {
	d, f, listed := danglingAfterRestart()
	// A later sweep whose list did not have it (the pod came after it).
	d.Gen, d.RemovedGen["a"], d.LastCleanup = 3, 1, map[string]CleanupCall{}
	d.DanglingCalls = append([]DanglingCall{{Gen: 2, Op: "provider.GetPods", Outcome: callgate.OK}},
		DanglingCall{Gen: 3, Op: "provider.GetPods", Outcome: callgate.Fail})
	d.PodsGiven = map[int]map[string]string{2: {}}
	if got := d.classify(f); got != ClassDanglingOnce {
		t.Errorf("a sweep before the pod came and a failed one: classified %q", got)
	}
	// A later sweep that listed it and did not fail, then a failed one:
	// VD only if that sweep's lister held another UID under the name
	// (deleteDanglingPods compares names), not a, not none; and not
	// when the last sweep, too, listed it and its lister held nothing.
	d.PodsGiven = map[int]map[string]string{2: listed}
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
		d.SweepHeld = c.held
		d.DanglingCalls = []DanglingCall{{Gen: 2, Op: "provider.GetPods", Outcome: callgate.OK},
			{Gen: 3, Op: "provider.GetPods", Outcome: c.last}}
		if c.last == callgate.OK {
			d.PodsGiven[3] = listed
		}
		if got := d.classify(f); got != c.want {
			t.Errorf("a sweep that listed it and did not fail, %s: classified %q, want %q", c.name, got, c.want)
		}
	}
}

// TestClassifyDanglingRemovedInLastGeneration: VD for a pod removed in the
// last generation (2) before its informer listed: only its
// deleteDanglingPods could clean it up, and that failed.
func TestClassifyDanglingRemovedInLastGeneration(t *testing.T) {
	d := newFacts()
	d.End = &End{APIByName: map[string]types.UID{}, ProviderByName: map[string]types.UID{"db": "a"}}
	f := Finding{Check: "VK3", Message: "pod a (db) left the API but still runs in the provider at the end (VK3)"}
	d.Gen, d.RemovedGen, d.RemovedAt = 2, map[types.UID]int{"a": 2}, map[types.UID]int{"a": 5}
	d.LastCleanup = map[string]CleanupCall{}
	d.DanglingCalls = []DanglingCall{{Gen: 2, Op: "provider.GetPods", Outcome: callgate.Fail}}
	d.PodsGiven = map[int]map[string]string{}
	for _, c := range []struct {
		name      string
		watchFrom map[int]int
		want      string
	}{
		{"removed before the last generation listed", map[int]int{1: 2, 2: 9}, ClassDanglingOnce},
		{"removed while the last generation never listed", map[int]int{1: 2}, ClassDanglingOnce},
		{"removed after the last generation listed", map[int]int{1: 2, 2: 4}, ""},
	} {
		d.WatchFrom = c.watchFrom
		if got := d.classify(f); got != c.want {
			t.Errorf("%s: classified %q, want %q", c.name, got, c.want)
		}
	}
	d.WatchFrom = map[int]int{1: 2, 2: 9}
	d.DanglingCalls = []DanglingCall{{Gen: 2, Op: "provider.GetPods", Outcome: callgate.OK}}
	d.PodsGiven = map[int]map[string]string{2: {"0x1": "default/db"}}
	if got := d.classify(f); got != "" {
		t.Errorf("removed before the last generation listed, whose sweep listed it and did not fail: classified %q", got)
	}
}
