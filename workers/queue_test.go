package workers

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

func TestQueue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := NewQueue(NewRealRuntime(nil, 1))
		now := time.Now()
		q.Enqueue("c", 2*time.Second)
		q.Enqueue("b", 2*time.Second)
		q.Enqueue("a", 5*time.Second)
		q.Enqueue("d", 0)
		q.Enqueue("a", time.Second) // replaces the earlier entry
		if got := q.Len(); got != 4 {
			t.Errorf("got %d entries, want 4", got)
		}
		if got, want := fmt.Sprint(q.GetWork(now)), "[d]"; got != want {
			t.Errorf("at now: got %s, want %s", got, want)
		}
		if got := q.GetWork(now.Add(500 * time.Millisecond)); len(got) != 0 {
			t.Errorf("at +0.5s: got %v, want none", got)
		}
		entries := q.Entries()
		if len(entries) != 3 || entries[0].UID != "a" || !entries[0].Due.Equal(now.Add(time.Second)) {
			t.Errorf("got entries %v, want a first, due at +1s", entries)
		}
		if got, want := fmt.Sprint(q.GetWork(now.Add(2*time.Second))), "[a b c]"; got != want {
			t.Errorf("at +2s: got %s, want %s (by due time, then UID)", got, want)
		}
		if got := q.Len(); got != 0 {
			t.Errorf("got %d entries left, want 0", got)
		}
	})
}

// TestQueueAgainstMap: the queue's entries (a slice searched by UID)
// against a map of UID to due time, over a seeded mix of Enqueues (new
// UIDs, replacements, in any UID order) and GetWorks at moving times: the
// same UIDs come out, in the same order, and the same entries are left.
// Fails when a replacement adds a second entry, when the entries lose
// their UID order (the search misses), or when GetWork keeps a due entry.
func TestQueueAgainstMap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := NewQueue(NewRealRuntime(nil, 1))
		start, ref := time.Now(), map[types.UID]time.Time{}
		r := rand.New(rand.NewPCG(1, 2))
		for step := range 2000 {
			now := start.Add(time.Duration(step/4) * time.Second)
			if r.IntN(3) > 0 {
				uid := types.UID(fmt.Sprintf("u%d", r.IntN(12)))
				d := time.Duration(r.IntN(4)) * time.Second
				q.Enqueue(uid, d+time.Until(now))
				ref[uid] = now.Add(d)
				continue
			}
			var want []QueueEntry
			for uid, at := range ref {
				if !at.After(now) {
					want = append(want, QueueEntry{UID: uid, Due: at})
					delete(ref, uid)
				}
			}
			slices.SortFunc(want, compareEntries)
			got := q.GetWork(now)
			if len(got) != len(want) {
				t.Fatalf("step %d: got %v, want %v", step, got, want)
			}
			for i := range got {
				if got[i] != want[i].UID {
					t.Fatalf("step %d: got %v, want %v", step, got, want)
				}
			}
			if q.Len() != len(ref) {
				t.Fatalf("step %d: %d entries left, want %d", step, q.Len(), len(ref))
			}
			for _, e := range q.Entries() {
				if at, ok := ref[e.UID]; !ok || !at.Equal(e.Due) {
					t.Fatalf("step %d: entry %v, want %v (%v)", step, e, at, ok)
				}
			}
		}
	})
}

// TestAppendWorkIsGetWork: AppendWork gives what GetWork gives, appended
// to the caller's buffer after what it holds, and takes the same entries
// out: two queues fed the same seeded Enqueues, one asked with GetWork,
// the other with AppendWork into one buffer reused with a prefix of its
// last answer kept. It fails when AppendWork writes over the buffer's
// contents or leaves a due entry queued.
func TestAppendWorkIsGetWork(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt := NewRealRuntime(nil, 1)
		a, b := NewQueue(rt), NewQueue(rt)
		start := time.Now()
		r := rand.New(rand.NewPCG(3, 4))
		var buf []types.UID
		asked := 0
		for step := range 2000 {
			now := start.Add(time.Duration(step/4) * time.Second)
			if r.IntN(3) > 0 {
				uid := types.UID(fmt.Sprintf("u%d", r.IntN(12)))
				d := time.Duration(r.IntN(4))*time.Second + time.Until(now)
				a.Enqueue(uid, d)
				b.Enqueue(uid, d)
				continue
			}
			keep := r.IntN(len(buf) + 1)
			prefix := slices.Clone(buf[:keep])
			want := a.GetWork(now)
			buf = b.AppendWork(buf[:keep], now)
			if !slices.Equal(buf[:keep], prefix) || !slices.Equal(buf[keep:], want) {
				t.Fatalf("step %d: AppendWork after %v gave %v, want %v then GetWork's %v", step, prefix, buf, prefix, want)
			}
			if !slices.Equal(a.Entries(), b.Entries()) {
				t.Fatalf("step %d: entries left %v, GetWork's queue %v", step, b.Entries(), a.Entries())
			}
			asked += len(want)
		}
		if asked == 0 {
			t.Fatal("no UID came due: nothing compared")
		}
	})
}
