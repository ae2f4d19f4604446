// Package slab keeps memory a kubelet world uses for one run for its
// lane's next run (world.Renew): values made once (Kept), and fresh
// slices cut from a kept array (Bump). A run's zero values come from
// history.Slab.
package slab

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

// Bump hands out fresh slices, each in memory no other slice it handed
// out since Reset holds, cut from an array kept across Reset (a new,
// larger one when it is full): a list a run rebuilds as it grows, where
// an older list may still be read, in no allocation of its own. The zero
// value is ready.
type Bump[T any] struct {
	buf []T // its len: what was handed out since Reset
}

// Make is an empty slice with room for n values, its own.
func (b *Bump[T]) Make(n int) []T {
	if len(b.buf)+n > cap(b.buf) {
		b.buf = make([]T, 0, max(2*cap(b.buf), n, 64)) // the old array stays with the slices cut from it
	}
	i := len(b.buf)
	b.buf = b.buf[:i+n]
	return b.buf[i : i : i+n]
}

// New is a zero value of its own, in Make's memory.
func (b *Bump[T]) New() *T { return &b.Make(1)[:1][0] }

// Insert is slices.Insert(s, i, v) in a slice of its own (s unchanged).
func (b *Bump[T]) Insert(s []T, i int, v T) []T {
	return append(append(append(b.Make(len(s)+1), s[:i]...), v), s[i:]...)
}

// Clone is a copy of s, its own.
func (b *Bump[T]) Clone(s []T) []T { return append(b.Make(len(s)), s...) }

// Reset zeroes what was handed out and hands the array out again. Only
// for a caller that knows nothing holds a slice it handed out any more.
func (b *Bump[T]) Reset() {
	clear(b.buf)
	b.buf = b.buf[:0]
}
