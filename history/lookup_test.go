package history

import (
	"math/rand/v2"
	"testing"
)

// TestLookupIsTheMap: on random Sets, Dels, Gets and Resets over keys
// that share cache slots (same length and last byte), a Lookup answers
// every Get as a plain map does, and holds what it holds. It fails when
// a write leaves the cache stale (Set or Del not updating the key's
// slot, Reset keeping the slots) or a hit is taken for another key in
// the slot.
func TestLookupIsTheMap(t *testing.T) {
	keys := []string{"a", "b", "c", "xa", "ya", "client/0", "client/1", "worker/a", "worker/a#2", "", "q", "Qa"}
	r := rand.New(rand.NewPCG(1, 2))
	l, m := NewLookup[string, int](), map[string]int{}
	for i := range 20000 {
		k := keys[r.IntN(len(keys))]
		switch op := r.IntN(10); {
		case op < 4:
			l.Set(k, i)
			m[k] = i
		case op < 5:
			l.Del(k)
			delete(m, k)
		case op == 5 && r.IntN(50) == 0:
			l.Reset()
			clear(m)
		default:
			got, ok := l.Get(k)
			want, wok := m[k]
			if got != want || ok != wok {
				t.Fatalf("op %d: Get(%q) = %d, %v; the map's %d, %v", i, k, got, ok, want, wok)
			}
		}
		if l.Len() != len(m) {
			t.Fatalf("op %d: Len %d, the map's %d", i, l.Len(), len(m))
		}
	}
}
