package latency

import (
	"fmt"
	"time"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/oracle"
)

// MinKillTimeout is killPodNow's floor on its wait (the kubelet's
// minimum: time for a SIGKILL to reach the runtime even with a tiny grace).
const MinKillTimeout = 10 * time.Second

// KillTimeout is killPodNow's wait for a kill of grace seconds: grace +
// grace/2 whole seconds (integer division, as upstream), at least
// MinKillTimeout; grace is the kill's override if it has one, else the
// pod's spec grace.
func KillTimeout(grace int64) time.Duration {
	return max(time.Duration(grace+grace/2)*time.Second, MinKillTimeout)
}

// killNowCheck is the killPodNow-timeout oracle (R2): killPodNow's wait
// returns "terminated" no later than KillTimeout after it began, and
// "timed out" exactly then — the kubelet's eviction and node shutdown
// managers act on that answer, so a wait that gives up early (or waits
// too long) changes what they do. The grace comes from the kill the
// same goroutine sent just before (its UpdatePod, recorded with the
// wait's completion ID). One per run: a kubelet restart starts afresh.
type killNowCheck struct {
	kills      map[string]int64    // goroutine → grace of its last kill with a completion, by completion ID
	killIDs    map[string]int      // goroutine → that kill's completion ID
	waits      map[int]killNowWait // ClientCall ID of an open wait
	violations []history.Violation
}

type killNowWait struct {
	uid     string
	began   time.Duration
	timeout time.Duration
}

// NewKillNow returns the killPodNow-timeout oracle.
func NewKillNow() oracle.Oracle {
	return &killNowCheck{kills: map[string]int64{}, killIDs: map[string]int{}, waits: map[int]killNowWait{}}
}

// Reset implements oracle.Resetter.
func (c *killNowCheck) Reset() {
	clear(c.kills)
	clear(c.killIDs)
	clear(c.waits)
	*c = killNowCheck{kills: c.kills, killIDs: c.killIDs, waits: c.waits}
}

// Kinds implements oracle.KindFilter.
func (c *killNowCheck) Kinds() oracle.Kinds {
	return oracle.KindsOf(history.Restarted, history.ClientCall, history.ClientReturn)
}

// Observe implements oracle.Oracle.
func (c *killNowCheck) Observe(_ oracle.View, ev *history.Event) {
	switch ev.Kind {
	case history.Restarted:
		c.kills, c.killIDs, c.waits = map[string]int64{}, map[string]int{}, map[int]killNowWait{}
	case history.ClientCall:
		switch in := ev.Input.(type) {
		case ops.UpdatePod:
			if in.Kill.CompletionID == 0 {
				return
			}
			grace := in.Pod.SpecGrace
			if in.Kill.HasGraceOverride {
				grace = in.Kill.GraceOverride
			}
			c.kills[ev.Goroutine], c.killIDs[ev.Goroutine] = grace, in.Kill.CompletionID
		case ops.KillPodNowDone:
			if id, ok := c.killIDs[ev.Goroutine]; ok && id == in.ID {
				c.waits[ev.ID] = killNowWait{uid: in.UID, began: ev.At, timeout: KillTimeout(c.kills[ev.Goroutine])}
			}
		}
	case history.ClientReturn:
		if len(c.waits) == 0 {
			return // most returns: no killPodNow waits (no map lookup)
		}
		w, ok := c.waits[ev.ID]
		if !ok {
			return
		}
		delete(c.waits, ev.ID)
		answer, _ := ev.Output.(ops.Answer)
		terminated := bool(answer)
		waited := ev.At - w.began
		switch {
		case terminated && waited > w.timeout:
			c.violate(ev, fmt.Sprintf("pod %s: killPodNow waited %v for the kill, past its timeout of %v, and returned terminated", w.uid, waited, w.timeout))
		case !terminated && waited != w.timeout:
			c.violate(ev, fmt.Sprintf("pod %s: killPodNow gave up after %v, want its timeout of %v (max(10 s, 1.5 × grace))", w.uid, waited, w.timeout))
		}
	}
}

func (c *killNowCheck) violate(ev *history.Event, msg string) {
	c.violations = append(c.violations, history.Violation{Oracle: "runtime", Invariant: "R2-killnow-timeout",
		At: ev.At, Seq: ev.Seq, Message: msg + " (R2)"})
}

// Finish implements oracle.Oracle.
func (c *killNowCheck) Finish(oracle.View, error) []history.Violation { return c.violations }
