package world

import "github.com/podsim/podsim/history"

// probe returns what every public query method of the pod workers answers
// at the end of a critical section of the pod lock, for the LockReleasing
// event, asked from the goroutine that holds the lock (simrt.Runtime.Probe:
// no scheduling point). The probe asks again only what the critical
// section can have changed, from what it learnt of the event stream
// (package world/probe says why that is enough; deliverOut hands it the
// events).
func (w *World) probe() *history.Probe {
	var p *history.Probe
	w.RT.Probe(func() { p = w.probes.Take(w.PW, w.sortedUIDs(), w.fullNameAt, w.internalOff) })
	return p
}

// fullNameAt is the full name of the pod of w.uids[i], for the probe.
func (w *World) fullNameAt(i int) string { return w.inOrder[i].fullName() }
