// Package killgate holds the kills that the real kubelet managers around
// the pod workers (the node shutdown manager, the eviction manager) send
// through the real killPodNow, each at a gate, until the driver delivers
// it: the seed then decides when each kill reaches the pod workers, and
// in which order a shutdown group's parallel kills arrive.
//
// A manager gets KillPodFunc(actor): every call builds the real killPodNow
// (the factory the driver passes, realkubelet's guarded linkname) over a
// one-call view of the pod workers whose UpdatePod parks the request here
// instead of performing it. The driver performs it (recorded, with a
// completion channel of its own) and then lets the parked UpdatePod
// return, after which killPodNow waits on its own channel as upstream's
// does; when the call returns, its result is kept on the request.
package killgate

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/kubernetes/pkg/kubelet"
	"k8s.io/kubernetes/pkg/kubelet/eviction"
)

// Factory builds the real killPodNow over the given pod workers.
type Factory func(kubelet.PodWorkers) eviction.KillPodFunc

// Request is one kill a manager sent, parked until it is delivered.
type Request struct {
	Actor string // the manager: "shutdown", "eviction"
	UID   types.UID
	// Opts is killPodNow's UpdatePod, as it sent it.
	Opts kubelet.UpdatePodOptions
	// SentAt is when the manager sent the kill (its killPodNow reached
	// UpdatePod at once); BackAt, once the call returned, when it did.
	SentAt, BackAt time.Time
	// Sent are the kill's grace override and evict flag as sent: the pod
	// workers write the effective grace into Opts' (shared) options.
	Sent struct {
		Grace *int64
		Evict bool
	}
	sent chan struct{}
	// done is closed when the killPodNow call returned; err is its result.
	done chan struct{}
	err  error
}

// Gate is the set of parked kill requests. Managers' goroutines add to it
// concurrently; the driver reads it between steps, when nothing runs.
type Gate struct {
	mu      sync.Mutex
	pw      kubelet.PodWorkers
	factory Factory
	pending []*Request
	// all are every request, for Open.
	all []*Request
}

// New returns a gate in front of the pod workers pw.
func New(pw kubelet.PodWorkers, f Factory) *Gate { return &Gate{pw: pw, factory: f} }

// KillPodFunc is the kill function a manager is built with.
func (g *Gate) KillPodFunc(actor string) eviction.KillPodFunc {
	return func(pod *v1.Pod, evict bool, grace *int64, statusFn func(*v1.PodStatus)) error {
		one := &oneCall{PodWorkers: g.pw, gate: g, actor: actor}
		err := g.factory(one)(pod, evict, grace, statusFn)
		if r := one.req; r != nil {
			r.err, r.BackAt = err, time.Now()
			close(r.done)
		}
		return err
	}
}

// oneCall is the pod workers as one killPodNow call sees them.
type oneCall struct {
	kubelet.PodWorkers
	gate  *Gate
	actor string
	req   *Request
}

// UpdatePod parks the kill until the driver delivered it.
func (c *oneCall) UpdatePod(_ context.Context, o kubelet.UpdatePodOptions) {
	r := &Request{Actor: c.actor, Opts: o, SentAt: time.Now(), sent: make(chan struct{}), done: make(chan struct{})}
	if o.Pod != nil {
		r.UID = o.Pod.UID
	}
	if ko := o.KillPodOptions; ko != nil {
		if g := ko.PodTerminationGracePeriodSecondsOverride; g != nil {
			grace := *g
			r.Sent.Grace = &grace
		}
		r.Sent.Evict = ko.Evict
	}
	c.req = r
	c.gate.mu.Lock()
	c.gate.pending = append(c.gate.pending, r)
	c.gate.all = append(c.gate.all, r)
	c.gate.mu.Unlock()
	<-r.sent
}

// Pending lists the parked requests, by UID and then actor: the order
// in which the driver notes them and the seed's choice indexes them.
func (g *Gate) Pending() []*Request {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := slices.Clone(g.pending)
	slices.SortStableFunc(out, func(a, b *Request) int {
		return cmp.Or(cmp.Compare(a.UID, b.UID), cmp.Compare(a.Actor, b.Actor))
	})
	return out
}

// Take removes r from the parked requests; the driver performs r.Opts and
// then calls Release.
func (g *Gate) Take(r *Request) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.pending = slices.DeleteFunc(g.pending, func(p *Request) bool { return p == r })
}

// Release lets the parked UpdatePod of a taken request return.
func (r *Request) Release() { close(r.sent) }

// Open counts the requests whose killPodNow call has not returned yet.
func (g *Gate) Open() int {
	g.mu.Lock()
	all := slices.Clone(g.all)
	g.mu.Unlock()
	n := 0
	for _, r := range all {
		if ok, _ := r.Returned(); !ok {
			n++
		}
	}
	return n
}

// Wait blocks until the killPodNow call returned and gives its result.
func (r *Request) Wait() error {
	<-r.done
	return r.err
}

// Returned reports whether the killPodNow call returned, and its result.
func (r *Request) Returned() (bool, error) {
	select {
	case <-r.done:
		return true, r.err
	default:
		return false, nil
	}
}
