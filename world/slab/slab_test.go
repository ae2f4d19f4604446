package slab

import "testing"

type value struct {
	n int
	p *int
}

// TestSlabReset: a slab hands out distinct values, zero ones, and after
// Reset the same memory again, zeroed (a value written in one run is zero
// in the next); past what it kept it allocates more.
func TestSlabReset(t *testing.T) {
	var s Slab[value]
	seen := map[*value]bool{}
	var first []*value
	for i := range 2*chunk + 3 {
		v := s.New()
		if seen[v] || *v != (value{}) {
			t.Fatalf("value %d: handed out twice or not zero", i)
		}
		seen[v] = true
		v.n, v.p = i+1, &i
		first = append(first, v)
	}
	s.Reset()
	for i := range 3*chunk + 1 {
		v := s.New()
		if *v != (value{}) {
			t.Fatalf("after Reset, value %d: not zero: %+v", i, *v)
		}
		if i < len(first) && v != first[i] {
			t.Fatalf("after Reset, value %d: new memory, not the kept value", i)
		}
		if i >= len(first) && seen[v] {
			t.Fatalf("after Reset, value %d: handed out twice", i)
		}
		seen[v] = true
	}
}
