package history

// few maps the few keys a recorder holds open at a time (the calls
// between their call and their return, the goroutines waiting for the pod
// lock) to operation indices: a list searched from its newest entry, which
// for so few costs less than hashing the key, and which empties without a
// map's work. Keys are unique.
type few[K comparable] struct {
	keys []K
	vals []int
}

// get is k's value, ok false when k is not in f.
func (f *few[K]) get(k K) (v int, ok bool) {
	for i := len(f.keys) - 1; i >= 0; i-- {
		if f.keys[i] == k {
			return f.vals[i], true
		}
	}
	return 0, false
}

// set gives k the value v.
func (f *few[K]) set(k K, v int) {
	for i := len(f.keys) - 1; i >= 0; i-- {
		if f.keys[i] == k {
			f.vals[i] = v
			return
		}
	}
	f.keys, f.vals = append(f.keys, k), append(f.vals, v)
}

// del removes k, if it is in f.
func (f *few[K]) del(k K) {
	for i := len(f.keys) - 1; i >= 0; i-- {
		if f.keys[i] == k {
			last := len(f.keys) - 1
			f.keys[i], f.vals[i] = f.keys[last], f.vals[last]
			var zero K
			f.keys[last] = zero // no string stays reachable
			f.keys, f.vals = f.keys[:last], f.vals[:last]
			return
		}
	}
}

// reset empties f, keeping its arrays.
func (f *few[K]) reset() {
	clear(f.keys)
	f.keys, f.vals = f.keys[:0], f.vals[:0]
}
