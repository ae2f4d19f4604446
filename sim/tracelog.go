package sim

// traceLog holds a run's trace records in chunks of traceLogChunk records.
// Appending never copies what is already recorded and leaves no outgrown
// arrays behind for the collector: a record costs its 16 bytes and a few
// stores, where a growing slice copied the whole trace at every growth
// and left the old arrays as garbage (BenchmarkTraceRecord measures it).
type traceLog struct {
	full [][]record // filled chunks, in order
	last []record   // the chunk being filled; nil before the first record
}

// traceLogChunk is the size of one chunk, in records (16 KB): a scenario
// run records a few hundred to a few thousand, so most runs fit in one or
// a few chunks.
const traceLogChunk = 1024

func (t *traceLog) add(r record) {
	if len(t.last) == cap(t.last) {
		t.next()
	}
	t.last = append(t.last, r)
}

// next starts a new chunk once the last one is full.
func (t *traceLog) next() {
	if cap(t.last) > 0 {
		t.full = append(t.full, t.last)
	}
	t.last = newTraceChunk()
}

// len is the number of records.
func (t *traceLog) len() int { return len(t.full)*traceLogChunk + len(t.last) }

// each calls f with every record in order and its index.
func (t *traceLog) each(f func(i int, r *record)) {
	i := 0
	for _, c := range t.full {
		for j := range c {
			f(i, &c[j])
			i++
		}
	}
	for j := range t.last {
		f(i, &t.last[j])
		i++
	}
}
