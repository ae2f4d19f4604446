package history

// Lookup is a map with string keys (UIDs, goroutine names) and a small
// direct-mapped cache in front of it: a run names a few UIDs and
// goroutines hundreds of times, and a lookup the cache answers compares
// one key instead of hashing it (a Go map lookup of a short string costs
// about 115 instructions, a cache hit about 30). The cache is kept
// coherent with the map by every write (Set, Del, Reset), so Get answers
// what the map would. The zero value is not ready: NewLookup.
type Lookup[K ~string, V any] struct {
	m     map[K]V
	slots [lookupSlots]lookupSlot[K, V]
}

type lookupSlot[K ~string, V any] struct {
	k  K
	v  V
	ok bool // holds k and its value in m
}

// lookupSlots is the cache's size: a power of two.
const lookupSlots = 32

// NewLookup returns an empty Lookup.
func NewLookup[K ~string, V any]() *Lookup[K, V] { return &Lookup[K, V]{m: map[K]V{}} }

// slotOf is k's slot: keys that differ differ mostly in their length or
// last byte ("a", "b"; "client/0", "worker/c").
func slotOf[K ~string](k K) int {
	h := len(k)
	if h > 0 {
		h = h*13 + int(k[h-1])
	}
	return h & (lookupSlots - 1)
}

// Get is k's value, ok false when k is not in l.
func (l *Lookup[K, V]) Get(k K) (v V, ok bool) {
	s := &l.slots[slotOf(k)]
	if s.ok && s.k == k {
		return s.v, true
	}
	if v, ok = l.m[k]; ok {
		*s = lookupSlot[K, V]{k: k, v: v, ok: true}
	}
	return v, ok
}

// Set gives k the value v.
func (l *Lookup[K, V]) Set(k K, v V) {
	l.m[k] = v
	l.slots[slotOf(k)] = lookupSlot[K, V]{k: k, v: v, ok: true}
}

// Del removes k, if it is in l.
func (l *Lookup[K, V]) Del(k K) {
	delete(l.m, k)
	if s := &l.slots[slotOf(k)]; s.ok && s.k == k {
		*s = lookupSlot[K, V]{}
	}
}

// Len is the number of keys in l.
func (l *Lookup[K, V]) Len() int { return len(l.m) }

// Map is l's map, to range over or read; written only through l.
func (l *Lookup[K, V]) Map() map[K]V { return l.m }

// Reset empties l, keeping its map.
func (l *Lookup[K, V]) Reset() {
	clear(l.m)
	clear(l.slots[:])
}
