package fakeclock

// A hand-written binary min-heap over Clock.timers, ordered by (when, seq).
// It is container/heap specialised to *Timer: no interface calls, no boxing,
// and each Timer keeps its index so removal by Stop/Reset is O(log n).
// All methods require c.mu to be held.

// before is the firing order: earlier deadline first, then earlier arming.
func (a *Timer) before(b *Timer) bool {
	return a.when < b.when || (a.when == b.when && a.seq < b.seq)
}

func (c *Clock) pushLocked(t *Timer) {
	t.index = len(c.timers)
	c.timers = append(c.timers, t)
	c.upLocked(t.index)
}

// removeLocked takes the timer at heap position i out of the heap.
func (c *Clock) removeLocked(i int) {
	h := c.timers
	t := h[i]
	last := len(h) - 1
	if i != last {
		h[i] = h[last]
		h[i].index = i
	}
	h[last] = nil // let a stopped timer (and its closure) be collected
	c.timers = h[:last]
	if i != last {
		c.fixLocked(i)
	}
	t.index = -1
}

// fixLocked restores the heap after the key at position i changed.
func (c *Clock) fixLocked(i int) {
	if !c.downLocked(i) {
		c.upLocked(i)
	}
}

func (c *Clock) upLocked(i int) {
	h := c.timers
	for i > 0 {
		p := (i - 1) / 2
		if !h[i].before(h[p]) {
			break
		}
		c.swapLocked(i, p)
		i = p
	}
}

// downLocked sifts position i down and reports whether it moved.
func (c *Clock) downLocked(i0 int) bool {
	h := c.timers
	i := i0
	for {
		l := 2*i + 1
		if l >= len(h) {
			break
		}
		m := l
		if r := l + 1; r < len(h) && h[r].before(h[l]) {
			m = r
		}
		if !h[m].before(h[i]) {
			break
		}
		c.swapLocked(i, m)
		i = m
	}
	return i > i0
}

func (c *Clock) swapLocked(i, j int) {
	h := c.timers
	h[i], h[j] = h[j], h[i]
	h[i].index = i
	h[j].index = j
}
