package history

import (
	"math/rand/v2"
	"testing"
)

// TestFewIsAMap: a Few answers as a map does through 20,000 random
// sets, gets, deletes, takes and resets over a handful of keys. It fails
// when set appends a key it already has (a later Del leaves the old value
// behind), when Del removes the wrong entry, when Take answers another
// key's value or leaves its key in, and when Reset keeps one.
func TestFewIsAMap(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 17))
	var f Few[string, int]
	m := map[string]int{}
	keys := []string{"client/a", "client/b", "worker/a", "worker/b#1", "driver", "fired"}
	for step := range 20000 {
		k, v := keys[r.IntN(len(keys))], r.IntN(100)
		switch op := r.IntN(10); {
		case op < 4:
			f.Set(k, v)
			m[k] = v
		case op < 6:
			f.Del(k)
			delete(m, k)
		case op < 8:
			got, ok := f.Take(k)
			want, wantOK := m[k]
			if got != want || ok != wantOK {
				t.Fatalf("step %d: take(%q) = %d, %v; the map has %d, %v", step, k, got, ok, want, wantOK)
			}
			delete(m, k)
		case op == 8 && r.IntN(20) == 0:
			f.Reset()
			clear(m)
		}
		for _, k := range keys {
			got, ok := f.Get(k)
			want, wantOK := m[k]
			if got != want || ok != wantOK {
				t.Fatalf("step %d: get(%q) = %d, %v; the map has %d, %v", step, k, got, ok, want, wantOK)
			}
		}
		if len(f.keys) != len(m) || len(f.vals) != len(m) {
			t.Fatalf("step %d: %d keys and %d values, the map has %d", step, len(f.keys), len(f.vals), len(m))
		}
		for i, k := range f.Keys() { // Keys and Values pair up as the map does
			if want, ok := m[k]; !ok || f.Values()[i] != want {
				t.Fatalf("step %d: key %q with value %d, the map has %d, %v", step, k, f.Values()[i], want, ok)
			}
		}
	}
}
