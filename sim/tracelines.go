package sim

// lineCache keeps the texts of the trace lines a render has made, less
// their time: a line is "<time> " and then a text, newline included, that
// depends on its record alone (the acting goroutine's, the object's and the argument's
// names never change once made), and a run repeats the same records many
// times (a worker's lock and unlock, a housekeeping tick's sleep). A slot,
// chosen by a hash of the record, holds the last record rendered there and
// where its text is in texts; a line whose record is in its slot is copied
// from there instead of rendered again, so the bytes are the same.
type lineCache struct {
	slots [lineSlots]struct {
		r      record
		off, n uint32
		full   bool
	}
	texts []byte
}

// lineSlots is how many records a lineCache keeps: a power of two.
const lineSlots = 256

// reset empties c for a render of another trace (another scheduler's names).
func (c *lineCache) reset() {
	clear(c.slots[:])
	c.texts = c.texts[:0]
}

// slot is where r's text is kept.
func (c *lineCache) slot(r *record) int {
	x := uint64(r.arg)*0x9e3779b97f4a7c15 ^ (uint64(uint32(r.obj))<<24|uint64(uint16(r.g))<<8|uint64(r.op))*0xbf58476d1ce4e5b9
	return int(x >> 56 & (lineSlots - 1))
}

// appendLine appends r's line to b, its time (atText) first and a newline
// last: the rest from the cache if r is in its slot, else rendered
// (appendRecordText) and kept there.
func (s *Scheduler) appendLine(b []byte, atText []byte, r *record, durs *durationTexts, c *lineCache) []byte {
	b = append(b, atText...)
	e := &c.slots[c.slot(r)]
	if e.full && e.r == *r {
		return append(b, c.texts[e.off:e.off+e.n]...)
	}
	start := len(b)
	b = append(s.appendRecordText(b, r, durs), '\n')
	e.r, e.off, e.n, e.full = *r, uint32(len(c.texts)), uint32(len(b)-start), true
	c.texts = append(c.texts, b[start:]...)
	return b
}
