package probe

import (
	"slices"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/plan"
)

// call is a client call in flight: the UID it works on, or all, or, for a
// SyncKnownPods (known), the desired UIDs it was given.
type call struct {
	g       string // the calling goroutine
	id      int
	uid     types.UID
	all     bool
	known   bool
	desired []string
}

// Kinds are the event kinds Note reads (a bit for each): the world hands
// it no other.
const Kinds = 1<<history.ClientCall | 1<<history.ClientReturn | 1<<history.LockAcquired |
	1<<history.Fired | 1<<history.LockReleasing | 1<<history.Restarted

// Note follows the world's event stream for Take: which UIDs the critical
// section in progress touched.
func (m *Memo) Note(ev *history.Event) {
	g := ev.Goroutine
	switch ev.Kind {
	case history.ClientCall:
		c := callOfEvent(ev)
		c.g = g
		if i := m.callOf(g); i >= 0 {
			m.calls[i] = c
		} else {
			m.calls = append(m.calls, c)
		}
		if m.holder == g {
			m.touch(c)
		}
	case history.ClientReturn:
		if i := m.callOf(g); i >= 0 && m.calls[i].id == ev.ID {
			m.calls = slices.Delete(m.calls, i, i+1)
		}
	case history.LockAcquired:
		m.holder, m.touched, m.all, m.syncKnown = g, m.touched[:0], false, false
		if uid, _, ok := history.WorkerOf(g); ok {
			m.touched = append(m.touched, types.UID(plan.SameUID(uid)))
		}
		if i := m.callOf(g); i >= 0 {
			m.touch(m.calls[i])
		}
	case history.Fired:
		switch f := ev.Input.(type) {
		case ops.CancelFired:
			m.touched = append(m.touched, types.UID(f.UID))
		case ops.CompletionFired:
			m.touched = append(m.touched, types.UID(f.UID))
		default:
			m.all = true
		}
	case history.LockReleasing:
		m.holder, m.touched, m.all, m.syncKnown = "", m.touched[:0], false, false
	case history.Restarted:
		m.last, m.holder, m.all = nil, "", false
		m.calls = m.calls[:0]
	}
}

// callOf is the index of g's call in flight in calls, -1 if none.
func (m *Memo) callOf(g string) int {
	for i := range m.calls {
		if m.calls[i].g == g {
			return i
		}
	}
	return -1
}

func (m *Memo) touch(c call) {
	if c.all || (c.known && m.syncKnown) {
		m.all = true // two SyncKnownPods in one section: not expected, ask everything
	} else if c.known {
		m.syncKnown, m.desired = true, c.desired
	} else if c.uid != "" {
		m.touched = append(m.touched, c.uid)
	}
}

// callOfEvent is the UID a call works on: queries work on none, a
// SyncKnownPods (or a call the probe does not know) on every one.
func callOfEvent(ev *history.Event) call {
	c := call{id: ev.ID}
	switch in := ev.Input.(type) {
	case ops.UpdatePod:
		c.uid = types.UID(in.Pod.UID)
	case ops.KillPodNowDone:
		c.uid = types.UID(in.UID)
	case ops.Query:
	case ops.SyncKnownPods:
		c.known, c.desired = true, in.Desired
	default:
		c.all = true
	}
	return c
}
