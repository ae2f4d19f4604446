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

// The kubelet's actor goroutines, followed by name: the eviction manager
// (eviction/<n>, P6) and the node shutdown manager's kills
// (shutdown-kill/<n>, P7). A timed call is one of their calls with when it
// was made and when it returned.
type timedCall struct {
	id       int
	in       ops.Input
	out      ops.Output
	at, done time.Duration
	returned bool
}

// actor is one actor goroutine's calls since it began.
type actor struct {
	calls    []timedCall
	restarts int
	// Eviction (P6): the pod, whether it was evictable when the actor
	// began, and the grace its Evict action gave.
	evict    bool
	uid      types.UID
	eligible bool
	graces   []int64 // those of the pod's Evict actions begun so far (-1: none)
}

// actorsRead reports whether actorEvent may act on ev (k: the target's
// kubelet, nil if none): a note on a kubelet (an eviction actor begins), a
// call of a shutdown-kill goroutine (its actor begins), or any event once an
// actor began. Every other event it would pass by.
func (c *checker) actorsRead(k oracle.Kubelet, ev *history.Event) bool {
	return len(c.actors) > 0 || ev.Kind == history.Noted && k != nil ||
		ev.Kind == history.ClientCall && strings.HasPrefix(ev.Goroutine, shutdownKillPrefix)
}

// shutdownKillPrefix begins the goroutine name of the node shutdown
// manager's kills.
const shutdownKillPrefix = "shutdown-kill/"

// actorEvent follows the calls of the actor goroutines (k: the target's
// kubelet, nil if none).
func (c *checker) actorEvent(k oracle.Kubelet, ev *history.Event) {
	g := ev.Goroutine
	switch ev.Kind {
	case history.Noted:
		if n, ok := ev.Note.(history.EvictionBegins); ok && k != nil {
			c.evictionBegins(k, g, n.UID)
		}
		return
	case history.ClientCall:
		if strings.HasPrefix(g, shutdownKillPrefix) && c.actors[g] == nil {
			c.actors[g] = &actor{restarts: c.restarts}
		}
		if a := c.actors[g]; a != nil {
			a.calls = append(a.calls, timedCall{id: ev.ID, in: ev.Input, at: ev.At})
		}
		c.shutdownCall(ev)
	case history.ClientReturn:
		if a := c.actors[g]; a != nil {
			for i := range a.calls {
				if a.calls[i].id == ev.ID {
					a.calls[i].out, a.calls[i].done, a.calls[i].returned = ev.Output, ev.At, true
				}
			}
		}
	}
}

// evictionBegins: the eviction actor g starts on uid; the pod is
// evictable if it is in config, admitted, neither static nor critical.
func (c *checker) evictionBegins(k oracle.Kubelet, g string, uid types.UID) {
	p, shape := k.Pod(uid), c.first(uid)
	// Two Evict actions of one pod start two actors, which may begin in
	// either order: the actor's grace is one of theirs.
	c.actors[g] = &actor{evict: true, uid: uid, restarts: c.restarts, graces: c.evictGraces[uid],
		eligible: p.InConfig && p.Admitted && !shape.Static && shape.Priority < plan.CriticalPriority}
}

// judgeEviction is P6 on one eviction actor: an evictable pod is asked
// about (IsPodKnownTerminated) and, unless known terminated, killed with
// KillPodNow(evict=true, the action's grace) and its cleanup awaited:
// ShouldPodBeFinished once a second until it holds, at most 31 times
// (waitForPodsCleanup's 30 s); a pod not evictable is left alone.
func (c *checker) judgeEviction(g string, a *actor) {
	uid := string(a.uid)
	calls := a.calls
	if !a.eligible {
		if len(calls) > 0 {
			c.violate("P6", "%s: pod %s was not evictable, but the eviction manager called %v", g, uid, calls[0].in)
		}
		return
	}
	if len(calls) == 0 || calls[0].in != (ops.Query{Kind: ops.IsPodKnownTerminated, UID: uid}) {
		c.violate("P6", "%s: evictable pod %s was not asked IsPodKnownTerminated first", g, uid)
		return
	}
	if calls[0].out == ops.Answer(true) {
		if len(calls) > 1 {
			c.violate("P6", "%s: pod %s is known terminated, but the eviction manager went on", g, uid)
		}
		return
	}
	if len(calls) < 3 {
		c.violate("P6", "%s: evictable pod %s was not killed and waited for", g, uid)
		return
	}
	u, ok := calls[1].in.(ops.UpdatePod)
	got := u.Kill
	got.CompletionID = 0
	graceOK := false
	for _, grace := range a.graces {
		want := ops.KillOptions{Evict: true}
		if grace >= 0 {
			want.GraceOverride, want.HasGraceOverride = grace, true
		}
		graceOK = graceOK || got == want
	}
	if !ok || u.Type != ops.Kill || u.Pod.UID != uid || !graceOK || u.Kill.CompletionID == 0 {
		c.violate("P6", "%s: the eviction of pod %s sent %v, want a kill with evict, a grace of %v and a completion", g,
			uid, calls[1].in, a.graces)
		return
	}
	if w, ok := calls[2].in.(ops.KillPodNowDone); !ok || w.ID != u.Kill.CompletionID {
		c.violate("P6", "%s: the eviction of pod %s did not wait for its kill", g, uid)
		return
	}
	c.judgeCleanupPolls(g, uid, calls[2], calls[3:])
}

// judgeCleanupPolls: after the kill's wait, ShouldPodBeFinished once a
// second until true, 31 polls at most.
func (c *checker) judgeCleanupPolls(g, uid string, wait timedCall, polls []timedCall) {
	prev := wait.done
	for i, p := range polls {
		if p.in != (ops.Query{Kind: ops.ShouldPodBeFinished, UID: uid}) {
			c.violate("P6", "%s: the eviction of pod %s asked %v while waiting for its cleanup", g, uid, p.in)
			return
		}
		if i > 0 && p.at-prev != time.Second || i == 0 && p.at != prev {
			c.violate("P6", "%s: cleanup poll %d of pod %s at %v, want %v", g, i+1, uid, p.at,
				map[bool]time.Duration{true: prev, false: prev + time.Second}[i == 0])
			return
		}
		prev = p.at
		if p.out == ops.Answer(true) {
			if i != len(polls)-1 {
				c.violate("P6", "%s: pod %s should be finished, but the eviction manager polled on", g, uid)
			}
			return
		}
	}
	if len(polls) != 31 {
		c.violate("P6", "%s: pod %s's cleanup was polled %d times without success, want 31 (30 s)", g, uid, len(polls))
	}
}
