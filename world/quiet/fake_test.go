package quiet

import (
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/workers"
)

// fakeWorld is a World whose facts a test sets; it counts the scheduling
// points a Watch passes (Entries, PodStates, Holder).
type fakeWorld struct {
	elapsed                   time.Duration
	stirring, busy            bool
	entries                   []workers.QueueEntry
	configs                   map[types.UID]Config
	states                    []workers.PodStateSnapshot
	holders                   map[string]types.UID
	asWritten, runtimeRepeats bool
	schedulingPoints          int
	// known is what the tests' SyncKnownPods answers (nil: their default).
	known workers.KnownPods
}

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func (f *fakeWorld) Elapsed() time.Duration      { return f.elapsed }
func (f *fakeWorld) Now() time.Time              { return epoch.Add(f.elapsed) }
func (f *fakeWorld) Stirring() bool              { return f.stirring }
func (f *fakeWorld) Busy() bool                  { return f.busy }
func (f *fakeWorld) Config(uid types.UID) Config { return f.configs[uid] }
func (f *fakeWorld) AsWritten() bool             { return f.asWritten }
func (f *fakeWorld) RuntimeRepeats() bool        { return f.runtimeRepeats }
func (f *fakeWorld) Entries(buf []workers.QueueEntry) []workers.QueueEntry {
	f.schedulingPoints++
	return append(buf[:0], f.entries...)
}
func (f *fakeWorld) Holder(name string) types.UID { f.schedulingPoints++; return f.holders[name] }
func (f *fakeWorld) PodStates() []workers.PodStateSnapshot {
	f.schedulingPoints++
	return f.states
}

// plainWorld is a world that takes the shortcuts, with nothing queued.
func plainWorld() *fakeWorld {
	return &fakeWorld{asWritten: true, runtimeRepeats: true, configs: map[types.UID]Config{}, holders: map[string]types.UID{}}
}

// queue puts uid's entry on the fake work queue, due d from now.
func (f *fakeWorld) queue(uid types.UID, d time.Duration) {
	f.entries = append(f.entries, workers.QueueEntry{UID: uid, Due: f.Now().Add(d)})
}

// idle is a record idle in S; waiting, a static waiter refused its start.
func idle(uid types.UID) workers.PodStateSnapshot {
	return workers.PodStateSnapshot{UID: uid, State: "S", Started: true, HasWorker: true}
}

func waiting(uid types.UID, fullName string) workers.PodStateSnapshot {
	return workers.PodStateSnapshot{UID: uid, FullName: fullName, State: "P", HasPendingUpdate: true,
		PendingUpdateType: workers.SyncPodSync, HasWorker: true}
}
