package history

// Arrays hands out arrays of T that are copied on write: each is new
// memory, never written after it is handed out, so a caller that ranges
// over one while another is made reads what it began with. They come from
// one buffer, kept across Reset (a lane's next seed) instead of dropped:
// the caller promises that after Reset nothing reads an array of the runs
// before. The zero value is ready.
type Arrays[T any] struct {
	buf []T // the arrays handed out from the current buffer, in order
}

// arraysMin is the room of an Arrays' first buffer.
const arraysMin = 64

// Insert is slices.Insert(s, i, v) in a new array of length and capacity
// len(s)+1 (an append to it copies again).
func (a *Arrays[T]) Insert(s []T, i int, v T) []T {
	out := a.next(len(s) + 1)
	copy(out, s[:i])
	out[i] = v
	copy(out[i+1:], s[i:])
	return out
}

// Make is a new zero array of length 0 and capacity n: appends up to n
// fill it in place (it is the caller's alone).
func (a *Arrays[T]) Make(n int) []T { return a.next(n)[:0] }

// next is a new array of n elements (zero: a buffer is made or cleared so).
func (a *Arrays[T]) next(n int) []T {
	if cap(a.buf)-len(a.buf) < n {
		// The arrays of the full buffer stay with their holders until the
		// run ends; Reset keeps only this one.
		a.buf = make([]T, 0, max(2*cap(a.buf), arraysMin, n))
	}
	start := len(a.buf)
	a.buf = a.buf[:start+n]
	return a.buf[start : start+n : start+n]
}

// Reset takes back every array handed out: the buffer, cleared (no
// element keeps a value of the run before), is the next run's.
func (a *Arrays[T]) Reset() {
	clear(a.buf)
	a.buf = a.buf[:0]
}
