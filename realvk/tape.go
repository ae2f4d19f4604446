package realvk

import (
	"time"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/oracle"
	"github.com/podsim/podsim/oracle/nearmiss"
	"github.com/podsim/podsim/oracle/vk"
	"github.com/podsim/podsim/oracle/vkcoverage"
)

// tape numbers the run's VK notes into history events, in the order they
// happened (the order of the goroutines' critical sections: between
// driver steps only one goroutine runs, and its notes are taken under the
// World's lock), and feeds them to the shared VK oracle (oracle/vk) as
// they come. The oracle reads the notes alone (no View). The notes also
// feed the VK state coverage (oracle/vkcoverage), which reads nothing else.
type tape struct {
	seq    int64
	start  time.Time
	events []history.Event
	// steps[i] is the driver step event i+1 was recorded in.
	steps  []int
	oracle oracle.Oracle
	cov    *vkcoverage.Tracker
	// near, if not nil, records the VK oracle's near misses into cov
	// (package oracle/nearmiss; Driver.RecordNearMisses).
	near *nearmiss.VKTracker
}

func newTape(start time.Time) *tape {
	return &tape{start: start, oracle: vk.New(), cov: vkcoverage.New()}
}

func (t *tape) observe(n history.Note, at time.Time, step int) {
	t.steps = append(t.steps, step)
	t.seq++
	ev := history.Event{Seq: t.seq, At: at.Sub(t.start), Goroutine: "vk", Kind: history.Noted, Note: n}
	t.events = append(t.events, ev)
	t.oracle.Observe(nil, &ev)
	t.cov.Observe(&ev)
	if t.near != nil {
		t.near.Observe(&ev)
	}
}

// finish is the oracle's verdict.
func (t *tape) finish() []history.Violation { return t.oracle.Finish(nil, nil) }
