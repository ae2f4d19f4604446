package safety

// slab hands out records of one type from arrays of slabSize, one
// allocation for many records, and keeps those arrays across Reset (a
// lane's next seed) instead of dropping them: after Reset nothing holds a
// record of the runs before (only the UID records and incarnations did,
// and those are emptied before they are reused), so each array is cleared
// and handed out again.
type slab[T any] struct {
	cur        []T   // the array records come from now; len: those handed out
	used       [][]T // the run's arrays before cur
	freeArrays [][]T // cleared arrays of the runs before Reset
}

// slabSize is how many records one array holds.
const slabSize = 8

// next returns a zero record, never handed out before in this run.
func (s *slab[T]) next() *T {
	if len(s.cur) == cap(s.cur) {
		if s.cur != nil {
			s.used = append(s.used, s.cur)
		}
		if n := len(s.freeArrays); n > 0 {
			s.cur, s.freeArrays[n-1], s.freeArrays = s.freeArrays[n-1], nil, s.freeArrays[:n-1]
		} else {
			s.cur = make([]T, 0, slabSize)
		}
	}
	s.cur = s.cur[:len(s.cur)+1]
	return &s.cur[len(s.cur)-1] // zero: arrays are made or cleared so
}

// reset takes back every record handed out: each array, cleared (no
// record keeps a pointer into the run before), is free for the next run.
func (s *slab[T]) reset() {
	if s.cur != nil {
		s.used = append(s.used, s.cur)
	}
	for i, a := range s.used {
		clear(a)
		s.freeArrays, s.used[i] = append(s.freeArrays, a[:0]), nil
	}
	s.cur, s.used = nil, s.used[:0]
}
