package kstatus

import (
	"context"
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// TestSyncOrderedFollowsTheOrder: two pods share the name "web"; the
// pass's order decides what the second one's Get finds. a (deleted,
// Failed, finished) first: its sync removes "web", b's Get finds nothing
// and b keeps its status. b first: b's Get finds a's object under another
// UID, takes it for a re-creation and drops its status.
func TestSyncOrderedFollowsTheOrder(t *testing.T) {
	for _, first := range []types.UID{"a", "b"} {
		w := newWorld()
		w.create(t, "a", "web")
		a, err := w.api.Delete("client", "default", "web", metav1.DeleteOptions{})
		if err != nil {
			t.Fatal(err)
		}
		w.m.Pods.UpdatePod(a)
		w.could["a"] = false
		w.m.SetPhase(a, v1.PodFailed, nil)
		w.m.Terminated(a)
		b := w.create(t, "b", "web-b")
		b.Name = "web" // its status is the manager's under the shared name
		w.m.SetPhase(b, v1.PodSucceeded, nil)
		if got := w.m.SharedName(); !slices.Equal(got, []types.UID{"a", "b"}) {
			t.Fatalf("SharedName = %v, want [a b]", got)
		}
		w.m.SyncOrdered(context.Background(), false, InOrder([]types.UID{first}))
		if got := w.phase(t, "web"); got != "gone" {
			t.Errorf("%s first: web is %s, want gone", first, got)
		}
		if _, kept := w.m.GetPodStatus("b"); kept != (first == "a") {
			t.Errorf("%s first: b's status kept = %v", first, kept)
		}
	}
}

// TestSyncOrderedKeepsVersions: a periodic pass run pod by pod keeps the
// other pods' synced versions (upstream's clean-up sees the whole map), so
// the next triggered pass has nothing to sync; and SharedName is nil for
// distinct names.
func TestSyncOrderedKeepsVersions(t *testing.T) {
	w := newWorld()
	for _, uid := range []string{"a", "b", "c"} {
		w.m.SetPhase(w.create(t, uid, "web-"+uid), v1.PodRunning, nil)
	}
	if got := w.m.SharedName(); got != nil {
		t.Fatalf("SharedName = %v for distinct names", got)
	}
	ctx := context.Background()
	if n := w.m.SyncOrdered(ctx, true, InOrder(nil)); n != 3 {
		t.Fatalf("periodic pass synced %d pods, want 3", n)
	}
	if n := w.m.SyncOrdered(ctx, false, InOrder(nil)); n != 0 {
		t.Fatalf("a triggered pass after it synced %d pods, want 0 (versions lost)", n)
	}
}

// TestInOrder: named UIDs first (those present), the rest in UID order.
func TestInOrder(t *testing.T) {
	got := InOrder([]types.UID{"c", "x", "a"})([]types.UID{"a", "b", "c", "d"})
	if want := []types.UID{"c", "a", "b", "d"}; !slices.Equal(got, want) {
		t.Fatalf("InOrder = %v, want %v", got, want)
	}
}

// TestSyncOrderedEmptyCleansUp: with no status left, a periodic pass still
// runs upstream's clean-up: the synced version of a pod whose status is
// gone is dropped, so a new status of that UID (version 1 again) is synced.
func TestSyncOrderedEmptyCleansUp(t *testing.T) {
	w := newWorld()
	p := w.create(t, "a", "web")
	w.m.SetPhase(p, v1.PodRunning, nil)
	ctx := context.Background()
	w.m.SyncOrdered(ctx, false, InOrder(nil))
	w.m.RemoveOrphanedStatuses(w.m.logger, map[types.UID]bool{})
	w.m.SyncOrdered(ctx, true, InOrder(nil)) // no status: the clean-up alone
	w.m.SetPhase(p, v1.PodSucceeded, nil)
	if n := w.m.SyncOrdered(ctx, false, InOrder(nil)); n != 1 {
		t.Fatalf("the UID's new status synced %d pods, want 1 (a stale version kept it back)", n)
	}
}
