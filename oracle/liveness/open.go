package liveness

import "github.com/podsim/podsim/model/ops"

// openCall is a goroutine's client call in progress: in, nil when none.
// effectDue: an UpdatePod whose critical section has not ended yet (L9
// opens its obligation there). A goroutine's record serves its every call.
type openCall struct {
	in        ops.Input
	effectDue bool
}

// lastOpen is the goroutine openOf looked up last and its record's index
// in calls, -1 for none (ok: set). A critical section's release follows
// its acquisition in the same goroutine, and a client's acquisition its
// call, so most lookups are of the goroutine looked up last: they hash no
// name. open only grows during a run, and newOpen sets lastOpen when it
// adds the goroutine it names, so lastOpen is never stale; Reset empties it.
type lastOpen struct {
	g  string
	i  int
	ok bool
}

// openOf is goroutine g's record, nil before its first call.
func (l *liveness) openOf(g string) *openCall {
	if !l.last.ok || l.last.g != g {
		i, ok := l.open.Get(g)
		if !ok {
			i = -1
		}
		l.last = lastOpen{g: g, i: i, ok: true}
	}
	if l.last.i < 0 {
		return nil
	}
	return &l.calls[l.last.i]
}

// newOpen is a new record for goroutine g, which has none.
func (l *liveness) newOpen(g string) *openCall {
	l.open.Set(g, len(l.calls))
	l.last = lastOpen{g: g, i: len(l.calls), ok: true}
	l.calls = append(l.calls, openCall{})
	return &l.calls[len(l.calls)-1]
}

// callOf is goroutine g's client call in progress, nil when none.
func (l *liveness) callOf(g string) ops.Input {
	if c := l.openOf(g); c != nil {
		return c.in
	}
	return nil
}
