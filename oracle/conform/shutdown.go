package conform

import (
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/oracle"
	"github.com/podsim/podsim/plan"
)

// P7, the node shutdown manager: a Shutdown action on a kubelet not yet
// shutting down begins a shutdown (ShutdownBegins) that ends
// (ShutdownDone) unless the kubelet restarts (a restart ends the shutdown
// asked of the old kubelet, begun or not: the new one owes none); it kills the pods of its
// snapshot group by group in ascending priority (a pod is in the last group
// whose priority is at most its own, the first group taking any lower
// one), each with grace min(group grace, spec grace), without evict; a
// group starts as soon as the previous group's kills all returned or its
// grace ran out. A ShutdownCancel while one is in force asks the manager to
// read the cancellation (ShutdownCancelled) once the shutdown ended, and
// not before; a Shutdown after that begins the next. (A ShutdownCancel
// that begins while the shutdown is asked for but has not begun may find
// it begun when the world applies it: it may be read, and need not be.)
type shutdownRun struct {
	begun    bool
	at       time.Duration
	snapshot map[types.UID]bool
	group    int           // the group being killed (-1: none yet)
	groupAt  time.Duration // when it began
	members  []types.UID   // its pods
	done     bool
	// cancelAsked: a ShutdownCancel came while it was asked for or in
	// force; cancelOwed: while it was in force, so it must be read;
	// cancelled: the manager read it.
	cancelAsked, cancelOwed, cancelled bool
	// killers are its shutdown-kill actors: an actor of an earlier
	// shutdown whose wait returns during this one counts for nothing here.
	killers map[string]bool
}

// shutdownGroups are the node's groups (one of grace 30 s by default).
func (c *checker) shutdownGroups() []plan.ShutdownGroup {
	if c.plan.Node == nil || len(c.plan.Node.ShutdownGroups) == 0 {
		return []plan.ShutdownGroup{{Priority: 0, Grace: 30}}
	}
	return c.plan.Node.ShutdownGroups
}

// groupOf is uid's shutdown group.
func (c *checker) groupOf(uid types.UID) int {
	prio, g := c.first(uid).Priority, 0
	for j, grp := range c.shutdownGroups() {
		if grp.Priority <= prio {
			g = j
		}
	}
	return g
}

// shutdownAction: a Shutdown action begins; pre.shutdown: one is in force
// already.
func (c *checker) shutdownAction(p pre) {
	if p.kube && !p.shutdown && (c.sd == nil || c.sd.cancelled) {
		c.sd = &shutdownRun{group: -1}
	}
}

// cancelAction: a ShutdownCancel action begins, which the manager must
// read if a shutdown is in force, and may if one is asked for.
func (c *checker) cancelAction(p pre) {
	if sd := c.sd; p.kube && sd != nil && !sd.cancelled {
		sd.cancelAsked = true
		sd.cancelOwed = sd.cancelOwed || p.shutdown
	}
}

// shutdownNoted follows the manager's notes; k is the kubelet's view (nil
// without one), whose admission must close as a shutdown begins and open
// as its cancellation is read.
func (c *checker) shutdownNoted(k oracle.Kubelet, ev *history.Event) {
	sd := c.sd
	switch n := ev.Note.(type) {
	case history.ShutdownBegins:
		if sd == nil || sd.begun {
			c.violate("P7", "a node shutdown began that no Shutdown action asked for")
			return
		}
		if k != nil && !k.ShuttingDown() {
			c.violate("P7", "a node shutdown began, but admission is still open")
		}
		sd.begun, sd.at, sd.snapshot, sd.killers = true, ev.At, map[types.UID]bool{}, map[string]bool{}
		clear(c.shutdownReturned) // an earlier shutdown's, since cancelled
		for _, uid := range n.Active {
			sd.snapshot[uid] = true
		}
	case history.ShutdownKill:
		c.shutdownKill(ev, n.UID)
	case history.ShutdownDone:
		if sd == nil || !sd.begun || sd.done {
			c.violate("P7", "a node shutdown ended that had not begun")
			return
		}
		c.groupOver(ev.At, len(c.shutdownGroups()))
		sd.done = true
	case history.ShutdownCancelled:
		if sd == nil || !sd.cancelAsked || sd.cancelled || !sd.begun || !sd.done {
			c.violate("P7", "the node shutdown manager read a cancellation that no ShutdownCancel asked of a shutdown in force, or before its processing ended")
			return
		}
		if k != nil && k.ShuttingDown() {
			c.violate("P7", "the node shutdown manager read the shutdown's cancellation, but admission is still closed")
		}
		sd.cancelled = true
	}
}

// shutdownKill: the next kill of the shutdown, in group order.
func (c *checker) shutdownKill(ev *history.Event, uid types.UID) {
	sd := c.sd
	if sd == nil || !sd.begun || !sd.snapshot[uid] {
		c.violate("P7", "pod %s killed by a node shutdown whose snapshot does not hold it", uid)
		return
	}
	g := c.groupOf(uid)
	switch {
	case g < sd.group:
		c.violate("P7", "pod %s (shutdown group %d) killed after group %d began", uid, g, sd.group)
	case g > sd.group:
		c.groupOver(ev.At, g)
		sd.group, sd.groupAt, sd.members = g, ev.At, nil
	}
	sd.members = append(sd.members, uid)
}

// groupOver: the group in progress ends at at (the next group begins, or
// the shutdown is done): no later than its grace after it began, and
// before that only once all its kills returned.
func (c *checker) groupOver(at time.Duration, next int) {
	sd := c.sd
	if sd.group < 0 {
		return
	}
	grace := time.Duration(c.shutdownGroups()[sd.group].Grace) * time.Second
	if at > sd.groupAt+grace {
		c.violate("P7", "shutdown group %d began at %v and held up group %d until %v, past its grace %v", sd.group,
			sd.groupAt, next, at, grace)
	}
	last, all := sd.groupAt, true
	for _, uid := range sd.members {
		r, ok := c.shutdownReturned[uid]
		all = all && ok && r <= at
		if ok {
			last = max(last, r)
		}
		if at < sd.groupAt+grace && (!ok || r > at) {
			c.violate("P7", "shutdown group %d ended at %v before the kill of pod %s returned and before its grace",
				sd.group, at, uid)
		}
	}
	if all && last < sd.groupAt+grace && at > last {
		c.violate("P7", "shutdown group %d's kills all returned by %v, but the next step waited until %v", sd.group,
			last, at)
	}
}

// shutdownCall checks the kill a shutdown-kill actor sends (P7) and notes
// when its wait returns.
func (c *checker) shutdownCall(ev *history.Event) {
	if !strings.HasPrefix(ev.Goroutine, shutdownKillPrefix) {
		return
	}
	u, ok := ev.Input.(ops.UpdatePod)
	if !ok || u.Type != ops.Kill {
		return
	}
	uid := types.UID(u.Pod.UID)
	if c.sd != nil && c.sd.killers != nil {
		c.sd.killers[ev.Goroutine] = true
	}
	want := min(c.shutdownGroups()[c.groupOf(uid)].Grace, c.first(uid).SpecGrace)
	if u.Kill.Evict || !u.Kill.HasGraceOverride || u.Kill.GraceOverride != want {
		c.violate("P7", "the node shutdown killed pod %s with %+v, want grace %d without evict", uid, u.Kill, want)
	}
}

// shutdownReturn: a shutdown kill's wait returned.
func (c *checker) shutdownReturn(ev *history.Event) {
	if !strings.HasPrefix(ev.Goroutine, shutdownKillPrefix) {
		return
	}
	a := c.actors[ev.Goroutine]
	if a == nil || c.sd == nil || !c.sd.killers[ev.Goroutine] {
		return
	}
	for _, cl := range a.calls {
		if w, ok := cl.in.(ops.KillPodNowDone); ok && cl.id == ev.ID {
			c.shutdownReturned[types.UID(w.UID)] = ev.At
		}
	}
}

// shutdownFinish: a shutdown asked for began and ended (a restart meanwhile
// dropped it: see Observe's Restarted).
func (c *checker) shutdownFinish() {
	sd := c.sd
	if sd != nil && !sd.done {
		c.violate("P7", "a node shutdown was asked for and never %s", map[bool]string{true: "ended", false: "began"}[sd.begun])
	}
	if sd != nil && sd.cancelOwed && !sd.cancelled {
		c.violate("P7", "a node shutdown's cancellation was asked for and never read")
	}
}
