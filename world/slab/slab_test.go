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

// TestKeptReset: Kept makes a value only when none is left, hands out
// distinct ones, and after Reset the same ones again, in order.
func TestKeptReset(t *testing.T) {
	var k Kept[value]
	made := 0
	make := func() *value { made++; return &value{n: -made} }
	var first []*value
	for range 3 {
		first = append(first, k.Next(make))
	}
	if made != 3 || first[0] == first[1] || first[1] == first[2] {
		t.Fatalf("made %d, handed out %p %p %p", made, first[0], first[1], first[2])
	}
	k.Reset()
	for i := range 4 {
		v := k.Next(make)
		if i < 3 && v != first[i] {
			t.Errorf("after Reset, value %d: not the kept one", i)
		}
	}
	if made != 4 {
		t.Errorf("made %d values, want 4 (one past the kept)", made)
	}
}
