package history

// Few maps the few keys a run holds open at a time (calls between their
// call and their return, goroutines waiting for the pod lock) to their
// values: a list searched from its newest entry, which for so few costs
// less than hashing the key, and which empties without a map's work (an
// emptied Go map draws a new hash seed). Keys are unique. The zero value
// is empty and ready.
type Few[K comparable, V any] struct {
	keys []K
	vals []V
}

// Get is k's value, ok false when k is not in f.
func (f *Few[K, V]) Get(k K) (v V, ok bool) {
	for i := len(f.keys) - 1; i >= 0; i-- {
		if f.keys[i] == k {
			return f.vals[i], true
		}
	}
	return v, false
}

// Set gives k the value v.
func (f *Few[K, V]) Set(k K, v V) {
	for i := len(f.keys) - 1; i >= 0; i-- {
		if f.keys[i] == k {
			f.vals[i] = v
			return
		}
	}
	f.keys, f.vals = append(f.keys, k), append(f.vals, v)
}

// Del removes k, if it is in f.
func (f *Few[K, V]) Del(k K) {
	for i := len(f.keys) - 1; i >= 0; i-- {
		if f.keys[i] == k {
			f.drop(i)
			return
		}
	}
}

// Take is Get then Del of k in one search: k's value, removed from f; ok
// false when k is not in f.
func (f *Few[K, V]) Take(k K) (v V, ok bool) {
	for i := len(f.keys) - 1; i >= 0; i-- {
		if f.keys[i] == k {
			v = f.vals[i]
			f.drop(i)
			return v, true
		}
	}
	return v, false
}

// drop removes the i-th key and its value.
func (f *Few[K, V]) drop(i int) {
	last := len(f.keys) - 1
	if i != last { // most often the newest goes: nothing to move
		f.keys[i], f.vals[i] = f.keys[last], f.vals[last]
	}
	var (
		noKey K
		noVal V
	)
	f.keys[last], f.vals[last] = noKey, noVal // nothing stays reachable
	f.keys, f.vals = f.keys[:last], f.vals[:last]
}

// Keys are f's keys, in no particular order, valid until f changes.
func (f *Few[K, V]) Keys() []K { return f.keys }

// Values are f's values, in no particular order, valid until f changes.
func (f *Few[K, V]) Values() []V { return f.vals }

// Len is the number of keys in f.
func (f *Few[K, V]) Len() int { return len(f.keys) }

// Reset empties f, keeping its arrays.
func (f *Few[K, V]) Reset() {
	clear(f.keys)
	clear(f.vals)
	f.keys, f.vals = f.keys[:0], f.vals[:0]
}
