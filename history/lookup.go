package history

// Lookup is a map with string keys (UIDs, goroutine names) and a small
// direct-mapped cache in front of it: a run names a few UIDs and
// goroutines hundreds of times, and a lookup the cache answers compares
// one key instead of hashing it (a Go map lookup of a short string costs
// about 115 instructions, a cache hit about 30). A slot remembers a key's
// absence too (a pod worker's goroutine has no client call). The cache is
// kept coherent with the map by every write (Set, Del, Reset), so Get
// answers what the map would. The zero value is not ready: NewLookup.
type Lookup[K ~string, V any] struct {
	m     map[K]V
	slots [lookupSlots]lookupSlot[K, V]
}

type lookupSlot[K ~string, V any] struct {
	k      K
	v      V
	filled bool // holds k: its value in m, or its absence (has false)
	has    bool
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
	if s.filled && s.k == k {
		return s.v, s.has
	}
	v, ok = l.m[k]
	*s = lookupSlot[K, V]{k: k, v: v, filled: true, has: ok}
	return v, ok
}

// Set gives k the value v.
func (l *Lookup[K, V]) Set(k K, v V) {
	l.m[k] = v
	l.slots[slotOf(k)] = lookupSlot[K, V]{k: k, v: v, filled: true, has: true}
}

// Del removes k, if it is in l.
func (l *Lookup[K, V]) Del(k K) {
	delete(l.m, k)
	l.slots[slotOf(k)] = lookupSlot[K, V]{k: k, filled: true}
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
