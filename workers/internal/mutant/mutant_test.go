package mutant

import "testing"

func TestSetAndLookup(t *testing.T) {
	var s Set
	if !s.Empty() || len(s.IDs()) != 0 {
		t.Fatalf("zero Set: got %v, want empty", s.IDs())
	}
	for _, id := range All() {
		got, ok := Lookup(id.String())
		if !ok || got != id {
			t.Fatalf("Lookup(%q) = %v, %v; want %v", id, got, ok, id)
		}
		one := Set{}.With(id)
		for _, other := range All() {
			if one.Has(other) != (other == id) {
				t.Fatalf("Set{%v}.Has(%v) = %v", id, other, one.Has(other))
			}
		}
	}
	if _, ok := Lookup("B99"); ok {
		t.Fatal("Lookup(B99) found a mutant")
	}
	if got := (Set{}.With(B2).With(G1)).IDs(); len(got) != 2 || got[0] != G1 || got[1] != B2 {
		t.Fatalf("IDs = %v, want [G1 B2]", got)
	}
	if int(count) > 32 {
		t.Fatalf("%d mutants do not fit the 32-bit Set", count)
	}
}
