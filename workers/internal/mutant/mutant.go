// Package mutant is the set of catalogued bugs (docs/bugs.md) that the pod
// workers can re-introduce. It lives under workers/internal so that only
// workers and workers/mutants can name it: a Set is a struct with an
// unexported field, so code outside those packages can hold only the zero
// Set (every mutant off) and cannot build another one, not even with an
// untyped constant. The one way to switch a mutant on is
// workers/mutants.Enable, which internal/depcheck lets only the world
// package (and the test-only baseline) import.
package mutant

// ID names one mutant; the order is docs/bugs.md's (G entries, then B entries).
type ID uint8

// The mutants of workers/. Their documentation (issue, invariant expected
// to catch them) is in workers/mutants, next to the public names.
const (
	G1 ID = iota
	G2
	G3
	G4
	B1
	B2
	B3
	B6
	B7
	B8
	B11
	B12
	B14
	count
)

var names = [count]string{"G1", "G2", "G3", "G4", "B1", "B2", "B3", "B6", "B7", "B8", "B11", "B12", "B14"}

func (id ID) String() string {
	if id < count {
		return names[id]
	}
	return "unknown"
}

// All returns every ID in catalogue order.
func All() []ID {
	out := make([]ID, count)
	for i := range out {
		out[i] = ID(i)
	}
	return out
}

// Lookup returns the ID called name (a docs/bugs.md id such as "B2").
func Lookup(name string) (ID, bool) {
	for i, n := range names {
		if n == name {
			return ID(i), true
		}
	}
	return 0, false
}

// Set is a set of mutants; the zero Set is the correct code. A bit test on
// a plain word keeps the hooks free when every mutant is off.
type Set struct{ bits uint32 }

// Has reports whether id is switched on.
func (s Set) Has(id ID) bool { return s.bits&(1<<id) != 0 }

// With returns s with id switched on.
func (s Set) With(id ID) Set { return Set{s.bits | 1<<id} }

// Empty reports the correct code: no mutant on.
func (s Set) Empty() bool { return s.bits == 0 }

// IDs lists the mutants switched on, in catalogue order.
func (s Set) IDs() []ID {
	var out []ID
	for _, id := range All() {
		if s.Has(id) {
			out = append(out, id)
		}
	}
	return out
}
