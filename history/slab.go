package history

// Slab hands out records of one type from arrays of SlabSize, one
// allocation for many records, and keeps those arrays across Reset (a
// lane's next seed) instead of dropping them: the caller promises that
// after Reset nothing reads a record of the runs before, so each array is
// cleared and handed out again. An array lives until Reset or until the
// Slab is dropped. The zero value is ready.
type Slab[T any] struct {
	cur        []T   // the array records come from now; len: those handed out
	used       [][]T // the run's arrays before cur
	freeArrays [][]T // cleared arrays of the runs before Reset
}

// SlabSize is how many records one array holds.
const SlabSize = 8

// Next returns a zero record, never handed out before in this run.
func (s *Slab[T]) Next() *T {
	if len(s.cur) == cap(s.cur) {
		if s.cur != nil {
			s.used = append(s.used, s.cur)
		}
		if n := len(s.freeArrays); n > 0 {
			s.cur, s.freeArrays[n-1], s.freeArrays = s.freeArrays[n-1], nil, s.freeArrays[:n-1]
		} else {
			s.cur = make([]T, 0, SlabSize)
		}
	}
	s.cur = s.cur[:len(s.cur)+1]
	return &s.cur[len(s.cur)-1] // zero: arrays are made or cleared so
}

// Reset takes back every record handed out: each array, cleared (no
// record keeps a pointer into the run before), is free for the next run,
// which Next hands them to in the order this run used them.
func (s *Slab[T]) Reset() {
	if s.cur != nil {
		s.used = append(s.used, s.cur)
	}
	for i := len(s.used) - 1; i >= 0; i-- {
		clear(s.used[i])
		s.freeArrays, s.used[i] = append(s.freeArrays, s.used[i][:0]), nil
	}
	s.cur, s.used = nil, s.used[:0]
}
