package quiet

import (
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/workers"
)

// TestWatchRenew: a renewed Watch is a zero one but for its kept memory,
// empty: the maps of the last sync and update per pod (the same maps) and
// queueBusy's buffer.
func TestWatchRenew(t *testing.T) {
	var q Watch
	q.NoteCallBegin("SyncPod", "a", 1)
	q.updates = map[types.UID]lastUpdate{"a": {version: 2}}
	q.entries = append(q.entries, workers.QueueEntry{UID: "a"})
	q.retries, q.proven = map[types.UID]bool{"a": true}, map[types.UID]bool{"b": true}
	q.settling, q.fired, q.at, q.inputs, q.repeated = true, true, 5, 3, 1
	syncs, updates := q.syncs, q.updates
	q.Renew()
	if len(q.syncs) != 0 || len(q.updates) != 0 || len(q.entries) != 0 {
		t.Fatalf("renewed: %d syncs, %d updates, %d entries kept", len(q.syncs), len(q.updates), len(q.entries))
	}
	if reflect.ValueOf(q.syncs).UnsafePointer() != reflect.ValueOf(syncs).UnsafePointer() ||
		reflect.ValueOf(q.updates).UnsafePointer() != reflect.ValueOf(updates).UnsafePointer() {
		t.Error("renewed: the maps made again")
	}
	q.syncs, q.updates, q.entries = nil, nil, nil
	if !reflect.DeepEqual(q, Watch{}) {
		t.Errorf("renewed: %+v, want a zero Watch", q)
	}
}
