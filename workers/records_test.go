package workers

import (
	"math/rand/v2"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/types"
)

// TestRecordListAsAMap: the scanned list answers as the map by UID it
// replaced, and lists its UIDs as that map's sorted keys, over random sets
// and removals of a few UIDs (one of them a prefix of another).
func TestRecordListAsAMap(t *testing.T) {
	uids := []types.UID{"b", "a", "ab", "c", "", "b0"}
	rng := rand.New(rand.NewPCG(1, 2))
	for run := 0; run < 200; run++ {
		var l recordList
		m := map[types.UID]*podSyncStatus{}
		for step := 0; step < 30; step++ {
			uid := uids[rng.IntN(len(uids))]
			if rng.IntN(3) == 0 {
				l.remove(uid)
				delete(m, uid)
			} else {
				s := &podSyncStatus{uid: uid}
				l.set(uid, s)
				m[uid] = s
			}
			if got, want := l.uids(), sortedKeys(m); !slices.Equal(got, want) {
				t.Fatalf("run %d step %d: uids %q, want %q", run, step, got, want)
			}
			for _, u := range uids {
				got, ok := l.get(u)
				want, wok := m[u]
				if got != want || ok != wok || l.at(u) != want {
					t.Fatalf("run %d step %d: get(%q) = %p, %v; want %p, %v", run, step, u, got, ok, want, wok)
				}
			}
		}
	}
}

// TestKnownPodsGet: Get finds each entry by its UID, and nothing for a
// UID not kept.
func TestKnownPodsGet(t *testing.T) {
	known := KnownPods{{"a", PodWorkerSync{State: SyncPodWork}}, {"ab", PodWorkerSync{Orphan: true}},
		{"b", PodWorkerSync{State: TerminatedPodWork, Static: true}}}
	for _, k := range known {
		if got, ok := known.Get(k.UID); !ok || got != k.PodWorkerSync {
			t.Errorf("Get(%q) = %v, %v; want %v, true", k.UID, got, ok, k.PodWorkerSync)
		}
	}
	if got, ok := known.Get("c"); ok || got != (PodWorkerSync{}) {
		t.Errorf("Get(c) = %v, %v; want the zero report, false", got, ok)
	}
}
