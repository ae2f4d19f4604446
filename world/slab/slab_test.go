package slab

import (
	"slices"
	"testing"
)

type value struct{ n int }

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

// TestBumpFresh: each slice Bump hands out is the slices package's
// result, in memory of its own (growing one, or the one before, changes
// no other: an older list read while a newer one is built stays as it
// was), also past a full array; after Reset the array is handed out
// again, zeroed.
func TestBumpFresh(t *testing.T) {
	var b Bump[int]
	var lists [][]int
	var want [][]int
	s := []int(nil)
	for v := range 40 { // 40 lists of up to 40: past the first array
		i := v / 2
		s = b.Insert(s, i, v)
		lists, want = append(lists, s), append(want, slices.Clone(s))
		if c := b.Clone(s); !slices.Equal(c, s) || &c[0] == &s[0] {
			t.Fatalf("Clone of %v: %v, or not its own", s, c)
		}
	}
	for k := range lists {
		_ = append(lists[k], -1) // room of its own: no other list changes
		if !slices.Equal(lists[k], want[k]) {
			t.Fatalf("list %d changed: %v, want %v", k, lists[k], want[k])
		}
	}
	if ref := slices.Insert([]int{1, 2, 3}, 1, 9); !slices.Equal(b.Insert([]int{1, 2, 3}, 1, 9), ref) {
		t.Errorf("Insert: not slices.Insert's %v", ref)
	}
	array := b.buf[:cap(b.buf)]
	b.Reset()
	if slices.ContainsFunc(array, func(v int) bool { return v != 0 }) {
		t.Errorf("after Reset: the array not zeroed: %v", array)
	}
	if again := b.Make(1)[:1]; &again[0] != &array[0] {
		t.Error("after Reset: not the kept array")
	}
}

// TestBumpNew: New hands out zero values, each in memory of its own
// (writing one changes no other), past the first array and again after
// Reset.
func TestBumpNew(t *testing.T) {
	var b Bump[int]
	for round := range 2 {
		var got []*int
		for v := range 100 {
			p := b.New()
			if *p != 0 {
				t.Fatalf("round %d, value %d: not zero: %d", round, v, *p)
			}
			*p = v + 1
			got = append(got, p)
		}
		for v, p := range got {
			if *p != v+1 {
				t.Fatalf("round %d: value %d written by a later New: %d", round, v, *p)
			}
		}
		b.Reset()
	}
}
