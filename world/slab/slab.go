// Package slab hands out the values a world makes for one run (its config
// pods, events, signals) from memory it keeps for the next run: a lane's
// next seed (world.Renew) builds them in the last seed's memory, not on
// the heap.
package slab

// chunk is how many values a slab allocates at a time.
const chunk = 16

// Slab hands out zero *T from chunks it keeps across Reset. The zero
// value is ready.
type Slab[T any] struct {
	chunks []*[chunk]T
	used   int // values handed out since the last Reset
}

// New is a zero T, in the slab's memory.
func (s *Slab[T]) New() *T {
	i := s.used / chunk
	if i == len(s.chunks) {
		s.chunks = append(s.chunks, new([chunk]T))
	}
	p := &s.chunks[i][s.used%chunk]
	s.used++
	return p
}

// Reset zeroes every value handed out and hands them out again. Only for
// a caller that knows nothing holds one of them any more.
func (s *Slab[T]) Reset() {
	for i := 0; s.used > 0; i++ {
		n := min(s.used, chunk)
		clear(s.chunks[i][:n])
		s.used -= n
	}
}

// Kept hands out values that are costly to make afresh (a value holding
// funcs bound to itself, made once), kept across Reset: Next hands out a
// kept one, or one newly made by make. Its values are not zeroed: the
// caller sets each one whole (a composite literal keeping only what make
// made). The zero value is ready.
type Kept[T any] struct {
	all  []*T
	used int
}

// Next is the next kept value, or make's if none is left.
func (k *Kept[T]) Next(make func() *T) *T {
	if k.used == len(k.all) {
		k.all = append(k.all, make())
	}
	k.used++
	return k.all[k.used-1]
}

// Reset hands out the kept values again. Only for a caller that knows
// nothing holds one of them any more.
func (k *Kept[T]) Reset() { k.used = 0 }
