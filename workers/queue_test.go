package workers

import (
	"fmt"
	"testing"
	"testing/synctest"
	"time"
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
