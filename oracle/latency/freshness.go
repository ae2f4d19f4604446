package latency

import (
	"fmt"
	"time"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/oracle"
)

// freshnessCheck is the status-freshness oracle (R3): before each sync
// call a pod worker reads the pod's status from the runtime cache newer
// than the moment its previous sync call returned (the zero time before
// its first), so the call never acts on a status older than its own last
// pass (SPEC §1.8 step 2, the kubelet's GetNewerThan(lastSyncTime)). The
// read is an argument of the caller's own PodCache, noted as
// history.StatusRead; the worker is the goroutine (worker/<uid>, one name
// per record generation). One per run: a kubelet restart starts afresh.
type freshnessCheck struct {
	lastEnd    history.Few[string, time.Duration] // worker goroutine → when its last sync call returned
	violations []history.Violation
}

// NewFreshness returns the status-freshness oracle.
func NewFreshness() oracle.Oracle { return &freshnessCheck{} }

// Reset implements oracle.Resetter.
func (c *freshnessCheck) Reset() {
	c.lastEnd.Reset()
	*c = freshnessCheck{lastEnd: c.lastEnd}
}

// Kinds implements oracle.KindFilter.
func (c *freshnessCheck) Kinds() oracle.Kinds {
	return oracle.KindsOf(history.Restarted, history.CallbackEnd, history.Noted)
}

// Observe implements oracle.Oracle.
func (c *freshnessCheck) Observe(_ oracle.View, ev *history.Event) {
	switch ev.Kind {
	case history.Restarted:
		c.lastEnd.Reset()
	case history.CallbackEnd:
		c.lastEnd.Set(ev.Goroutine, ev.At)
	case history.Noted:
		n, ok := ev.Note.(history.StatusRead)
		if !ok {
			return
		}
		want, synced := c.lastEnd.Get(ev.Goroutine)
		if !synced {
			want = -1
		}
		if n.NewerThan != want {
			c.violations = append(c.violations, history.Violation{Oracle: "runtime", Invariant: "R3-status-freshness",
				At: ev.At, Seq: ev.Seq, Message: fmt.Sprintf("pod %s: %s read the status newer than %s, want newer than %s (R3)",
					n.UID, ev.Goroutine, moment(n.NewerThan), moment(want))})
		}
	}
}

// moment names a NewerThan: a virtual time, or the zero time.
func moment(d time.Duration) string {
	if d < 0 {
		return "the zero time (its first pass)"
	}
	return d.String() + " (its last sync call's return)"
}

// Finish implements oracle.Oracle.
func (c *freshnessCheck) Finish(oracle.View, error) []history.Violation { return c.violations }
