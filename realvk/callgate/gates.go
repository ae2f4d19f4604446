// Package callgate holds the real virtual-kubelet controller's calls into
// its world (the provider, the API server, the informer's list and its
// handler) at gates: each parks until the driver releases it with an
// Outcome, so the seed alone decides which call returns next. It knows
// nothing of the world behind the calls.
package callgate

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing/synctest"

	"github.com/podsim/podsim/realdriver"
)

// Call is one call of the real controller into its world (the provider or
// the API server), parked at its gate until the driver releases it with an
// outcome. Parking is a receive on a channel made inside the synctest
// bubble, so a parked goroutine is durably blocked: synctest.Wait returns
// only once every goroutine has reached a gate or gone idle, and between
// two driver steps nothing runs.
type Call struct {
	// Gen is the controller generation that made the call (realvk's
	// restart).
	Gen int
	// Op is what is called: "provider.CreatePod", "api.UpdateStatus", …
	Op string
	// Key is the pod's namespace/name ("" for GetPods).
	Key string
	// Caller is the first function of the node package on the caller's
	// stack (deterministic: it names code, not goroutines); it tells two
	// parked calls of one Op and Key apart.
	Caller string
	Ctx    context.Context

	// Begun: the driver recorded the call in the trace.
	Begun bool

	release chan Outcome
}

// Label is the call's name in scripts and traces.
func (c *Call) Label() string {
	key := c.Key
	if key == "" {
		key = "-"
	}
	return fmt.Sprintf("g%d/%s/%s/%s", c.Gen, c.Op, key, c.Caller)
}

// Outcome is how the driver makes a parked call return.
type Outcome uint8

// Outcomes a released call returns.
const (
	// OK: the call takes effect and returns what the world says.
	OK Outcome = iota
	// Fail: an injected transient error, without effect (a provider error
	// that heals, an API server 500).
	Fail
	// Missing: the provider answers not-found without effect (a provider
	// that lost the pod); an API call treats it as Fail.
	Missing
	// Dead: the call's controller generation crashed: it returns an error
	// without effect (a restart of the controller).
	Dead
)

var outcomeNames = [...]string{"ok", "fail", "missing", "dead"}

func (o Outcome) String() string { return outcomeNames[o] }

// ParseOutcome reads an outcome's name.
func ParseOutcome(s string) (Outcome, error) {
	return realdriver.ParseOutcome[Outcome](outcomeNames[:], s)
}

// Gates holds the parked calls. Its lock only guards the list: between
// driver steps exactly one goroutine touches it.
type Gates struct {
	mu     sync.Mutex
	parked []*Call
	// dead is the highest crashed generation: its calls return Dead at
	// once, without parking.
	dead int
	// dups are the labels a call parked under while another call with
	// that label was parked (a harness fault, reported as a finding).
	dups []string
}

// TakeDups returns and clears the duplicate labels seen.
func (g *Gates) TakeDups() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := g.dups
	g.dups = nil
	return out
}

// Park blocks c until the driver releases it.
func (g *Gates) Park(c *Call) Outcome {
	if c.Caller == "" {
		c.Caller = callerInNode()
	}
	c.release = make(chan Outcome)
	g.mu.Lock()
	if c.Gen <= g.dead {
		g.mu.Unlock()
		return Dead
	}
	label := c.Label()
	if slices.ContainsFunc(g.parked, func(p *Call) bool { return p.Label() == label }) {
		// Two parked calls with one label: which one a release lets go
		// would be their arrival order, the scheduler's.
		g.dups = append(g.dups, label)
	}
	g.parked = append(g.parked, c)
	g.mu.Unlock()
	return <-c.release
}

// Parked lists the parked calls by label: a deterministic order whatever
// order the goroutines arrived in.
func (g *Gates) Parked() []*Call {
	g.mu.Lock()
	defer g.mu.Unlock()
	return realdriver.Parked(g.parked, (*Call).Label)
}

// Release lets the first parked call with label return with o.
func (g *Gates) Release(label string, o Outcome) (*Call, bool) {
	g.mu.Lock()
	c, ok := realdriver.Unpark(&g.parked, func(c *Call) bool { return c.Label() == label })
	g.mu.Unlock()
	if !ok {
		return nil, false
	}
	c.release <- o
	return c, true
}

// Kill marks generation gen dead and releases its parked calls with Dead,
// one at a time in label order, each run to its end or its next gate
// before the next (inside the bubble).
func (g *Gates) Kill(gen int) {
	g.mu.Lock()
	g.dead = max(g.dead, gen)
	var victims []*Call
	g.parked = slices.DeleteFunc(g.parked, func(c *Call) bool {
		if c.Gen <= gen {
			victims = append(victims, c)
			return true
		}
		return false
	})
	g.mu.Unlock()
	for _, c := range realdriver.Parked(victims, (*Call).Label) {
		c.release <- Dead
		synctest.Wait()
	}
}

// callerInNode is the innermost function of virtual-kubelet's node package
// on the stack (without the package path), or "?" if none.
func callerInNode() string {
	pcs := make([]uintptr, 32)
	n := runtime.Callers(3, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		if i := strings.Index(f.Function, "/virtual-kubelet/node."); i >= 0 {
			name := f.Function[i+len("/virtual-kubelet/node."):]
			name = strings.TrimPrefix(name, "(*PodController).")
			if j := strings.IndexAny(name, ".("); j >= 0 {
				name = name[:j]
			}
			return name
		}
		if !more {
			return "?"
		}
	}
}
