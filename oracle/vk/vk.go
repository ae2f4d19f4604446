// Package vk is the oracle of the virtual-kubelet pod controller: it
// judges a VK target's run from the notes the target records
// (history.VKCreated ... history.VKSettled; history/notes_vk.go says what a
// target must record) and reads nothing else of the target, so the
// simulated VK world and the real PodController are judged alike.
//
// The invariants (docs/vk.md):
//
//	VK1 identity   every API delete the controller makes carries the UID precondition of the pod it removes
//	VK2 status     the last status the provider notified for a live pod is the one the API holds at the end
//	               (an edit by another writer of the provider's last status stands until the provider
//	               notifies again, for ever if that status is terminal: the controller never writes over one)
//	VK3 deletion   the controller removes an API object only after it was deleted (by a client or the
//	               provider) and the provider reported it terminal (or the API's status says it does not
//	               run, what the controller decides on) or its grace expired; a deleted pod is
//	               deleted in the provider and removed from the API by the end, and never re-created
//	VK4 startup    a pod with a deletion timestamp when the controller starts is finished like any other
//	VK5 dangling   a provider pod with no API object is deleted; one whose API object lives is not
//	VK6 sync       every live API pod runs in the provider at the end
//	VK7 liveness   every controller start becomes Ready, every cancel closes Done with a nil Err, the
//	               queues drain, and the run settles
//	VK8 retries    (when told the target's Timing) a pod's failed status write is retried no sooner than
//	               the status queue's own backoff allows, unless something queued it again (backoff.go)
package vk

import (
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/oracle"
)

// Name is the oracle's name in violations.
const Name = "vk"

// New returns the VK oracle: one for the whole run (the API server and the
// provider outlive a controller restart).
func New() oracle.Oracle {
	return &checker{pods: map[types.UID]*pod{}, seen: map[string]bool{}, started: map[int]bool{},
		ready: map[int]bool{}, cancelled: map[int]bool{}, done: map[int]string{}}
}

// pod is what the oracle knows of one UID.
type pod struct {
	name             string
	inAPI            bool
	deleting         bool // the API object has a deletion timestamp
	deletedAt        time.Duration
	grace            int64
	deletingAtStart  bool
	inProvider       bool
	providerGone     bool // it left the provider at least once
	providerTerminal bool // the provider notified a terminal phase
	providerDeleting bool // the provider deleted it by itself
	notified         bool
	lastPhase        v1.PodPhase
	lastVersion      int
	apiPhase         v1.PodPhase // the phase the API object's status holds
	apiVersion       int         // and the provider status version
	editStands       bool        // another writer edited the status after the provider's last one landed
	terminalEdit     bool        // ... a terminal one, which the controller never writes over
}

type checker struct {
	ev         history.Event
	violations []history.Violation
	seen       map[string]bool
	pods       map[types.UID]*pod
	epochs     int
	started    map[int]bool
	ready      map[int]bool
	cancelled  map[int]bool
	done       map[int]string
	final      *history.VKFinal
	backoff    *backoff // VK8, when told the target's Timing (backoff.go)
}

func (c *checker) violate(invariant, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if c.seen[msg] {
		return
	}
	c.seen[msg] = true
	c.violations = append(c.violations, history.Violation{Oracle: Name, Invariant: invariant,
		Message: msg + " (" + invariant + ")", At: c.ev.At, Seq: c.ev.Seq})
}

func (c *checker) pod(uid types.UID) *pod {
	p := c.pods[uid]
	if p == nil {
		p = &pod{}
		c.pods[uid] = p
	}
	return p
}

// Observe implements oracle.Oracle: it reads the VK notes only.
func (c *checker) Observe(_ oracle.View, ev *history.Event) {
	if ev.Kind != history.Noted {
		return
	}
	c.ev = *ev
	switch n := ev.Note.(type) {
	case history.VKCreated:
		p := c.pod(n.UID)
		p.name, p.inAPI, p.apiPhase = n.Name, true, v1.PodPending
	case history.VKStatusWritten:
		p := c.pod(n.UID)
		p.apiPhase, p.apiVersion = n.Phase, n.Version
		if c.backoff != nil {
			c.backoff.attempt(n.UID, ev.At, false, "")
		}
	case history.VKStatusWriteFailed:
		if c.backoff != nil {
			c.backoff.attempt(n.UID, ev.At, true, n.Err)
		}
	case history.VKEdited:
		// An edit of the provider's last status stands until the provider
		// notifies again (then the status must be written again, V4),
		// for ever if it is terminal (the controller never writes over a
		// terminal status).
		p := c.pod(n.UID)
		if p.apiVersion == p.lastVersion {
			p.editStands, p.terminalEdit = true, p.apiPhase == v1.PodSucceeded || p.apiPhase == v1.PodFailed
		}
		p.apiVersion = 0
	case history.VKDeleteRequested:
		p := c.pod(n.UID)
		if !p.deleting {
			p.deleting, p.deletedAt, p.grace = true, ev.At, n.Grace
		}
	case history.VKRemoved:
		c.removed(n)
	case history.VKProviderCreated:
		p := c.pod(n.UID)
		if p.providerGone {
			c.violate("VK3", "pod %s was created in the provider again after it had been deleted there", n.UID)
		}
		p.inProvider = true
	case history.VKProviderDeleted:
		c.providerDeleted(n)
	case history.VKNotified:
		if c.backoff != nil {
			c.backoff.notifiedNote(n, ev.At)
		}
		p := c.pod(n.UID)
		if !p.terminalEdit || n.Version != p.lastVersion {
			p.editStands = false
		}
		p.notified, p.lastPhase, p.lastVersion = true, n.Phase, n.Version
		p.providerTerminal = p.providerTerminal || n.Phase == v1.PodSucceeded || n.Phase == v1.PodFailed
		p.providerDeleting = p.providerDeleting || n.Deleting
	case history.VKStarted:
		c.start(n.Epoch)
		if c.backoff != nil {
			c.backoff.reset()
		}
	case history.VKReady:
		c.ready[n.Epoch] = true
	case history.VKCancelled:
		// The backoff state is not reset here: the cancelled controller's
		// workers and informer go on until its queues shut down (Done), and
		// what queued a write before the cancel still counts.
		c.cancelled[n.Epoch] = true
	case history.VKDone:
		c.done[n.Epoch] = n.Err
	case history.VKSettled:
		final := n.Final
		c.final = &final
	}
}

func (c *checker) start(epoch int) {
	c.started[epoch] = true
	c.epochs++
	if c.epochs > 1 {
		return
	}
	for _, p := range c.pods {
		p.deletingAtStart = p.inAPI && p.deleting
	}
}

// removed judges an API object leaving the API (VK1, VK3).
func (c *checker) removed(n history.VKRemoved) {
	p := c.pod(n.UID)
	defer func() { p.inAPI = false }()
	if n.By != "controller" {
		return
	}
	if n.Precondition != n.UID {
		c.violate("VK1", "the controller deleted pod %s (%s) from the API with UID precondition %q, not its own",
			n.UID, p.name, n.Precondition)
	}
	switch {
	case !p.deleting && !p.providerDeleting:
		c.violate("VK3", "the controller removed pod %s (%s) from the API although nobody had deleted it", n.UID, p.name)
	case p.deleting && p.apiPhase == v1.PodRunning && !p.providerTerminal && !p.providerGone && !p.providerDeleting &&
		c.ev.At < p.deletedAt+time.Duration(p.grace)*time.Second:
		c.violate("VK3", "the controller removed pod %s (%s) from the API at %v while its status said Running, before the "+
			"provider reported it terminal and before its grace of %ds (deleted at %v) expired", n.UID, p.name, c.ev.At, p.grace, p.deletedAt)
	}
}

// providerDeleted judges a pod leaving the provider (VK5).
func (c *checker) providerDeleted(n history.VKProviderDeleted) {
	p := c.pod(n.UID)
	if !n.ByProvider && p.inAPI && !p.deleting && !p.providerDeleting {
		c.violate("VK5", "the controller deleted pod %s (%s) from the provider while its API object lives", n.UID, p.name)
	}
	p.inProvider, p.providerGone = false, true
}

// Finish implements oracle.Oracle: the end-of-run checks, unless the run
// failed (its error is the verdict).
func (c *checker) Finish(_ oracle.View, runErr error) []history.Violation {
	if runErr != nil {
		return c.violations
	}
	c.ev = history.Event{At: c.ev.At}
	if c.final == nil {
		c.violate("VK7", "the run never settled (no final state recorded)")
		return c.violations
	}
	c.judgeLife()
	c.judgeAPI(c.final.API)
	c.judgeProvider(c.final)
	return c.violations
}

// judgeLife checks the controller's starts and stops and its queues (VK7).
func (c *checker) judgeLife() {
	for e := 1; e <= c.epochs; e++ {
		switch err, done := c.done[e]; {
		case !c.ready[e]:
			c.violate("VK7", "controller start %d never became Ready", e)
		case c.cancelled[e] && !done:
			c.violate("VK7", "controller start %d was cancelled but Done never closed", e)
		case done && err != "":
			c.violate("VK7", "controller start %d ended with Err %q", e, err)
		}
	}
	if c.final.Queued > 0 {
		c.violate("VK7", "%d items were left in the controller's queues at the end: they never drained", c.final.Queued)
	}
}

// judgeAPI checks the API objects left at the end (VK2, VK3, VK4, VK6).
func (c *checker) judgeAPI(api []history.VKAPIPod) {
	inProvider := map[types.UID]bool{}
	for _, pp := range c.final.Provider {
		inProvider[pp.UID] = true
	}
	for _, a := range api {
		p := c.pod(a.UID)
		switch {
		case a.Deleting && p.deletingAtStart:
			c.violate("VK4", "pod %s (%s) was terminating when the controller started and is still in the API at the end: "+
				"its deletion was never finished", a.UID, a.Name)
		case a.Deleting:
			c.violate("VK3", "pod %s (%s) is still in the API with a deletion timestamp at the end: its deletion never finished",
				a.UID, a.Name)
		case p.providerDeleting:
			c.violate("VK3", "the provider deleted pod %s (%s) by itself, but its API object was never deleted", a.UID, a.Name)
		case !inProvider[a.UID]:
			c.violate("VK6", "pod %s (%s) is live in the API but does not run in the provider at the end", a.UID, a.Name)
		case p.notified && !p.editStands && (a.Version != p.lastVersion || a.Phase != p.lastPhase):
			c.violate("VK2", "the provider's last status for pod %s (%s), v%d %s, never reached the API, which holds v%d %s",
				a.UID, a.Name, p.lastVersion, p.lastPhase, a.Version, a.Phase)
		}
	}
}

// judgeProvider checks the provider's pods left at the end (VK3, VK5).
func (c *checker) judgeProvider(final *history.VKFinal) {
	inAPI := map[types.UID]bool{}
	for _, a := range final.API {
		inAPI[a.UID] = true
	}
	for _, pp := range final.Provider {
		if inAPI[pp.UID] {
			continue
		}
		p := c.pod(pp.UID)
		if p.name != "" {
			c.violate("VK3", "pod %s (%s) left the API but still runs in the provider at the end", pp.UID, p.name)
		} else {
			c.violate("VK5", "provider pod %s has no API object and was never deleted (dangling)", pp.UID)
		}
	}
}
