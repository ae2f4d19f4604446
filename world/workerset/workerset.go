// Package workerset follows the pod workers' goroutines of a kubelet
// world's run, and what each was last seen doing, for the drain after
// Settled (oracle/liveness L10): a worker that never returns is a goroutine
// leak that no other event shows. The world notes each start and return;
// this package keeps the live ones, bounds the drain and words the leaks.
package workerset

import (
	"fmt"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
	"github.com/podsim/podsim/world/slab"
)

// Goroutine is a worker goroutine that has not returned, and what it was
// last seen doing (for the leak's message), named by Name and process
// (each process's pod workers count afresh).
type Goroutine struct {
	Name    string
	Kubelet int
	UID     types.UID
	Started int // start order in the run
	Doing   string
	What    string // the signal waited on, or the sync call
	Since   time.Duration
}

// Set follows the live worker goroutines of every kubelet process of the
// run: Live holds what a map by name and process would (Put, Remove),
// found by a scan (At), for a run has a few.
type Set struct {
	Live    []*Goroutine
	Started int
	// Draining: the drain runs; AllEnded fires as the last one returns.
	Draining bool
	AllEnded *sim.Event
	// Ended is called as a goroutine Start began returns (the world notes
	// it); runs are those goroutines, kept for a lane's next run (Renew).
	Ended func(g *Goroutine)
	runs  slab.Kept[Run]
}

// Run is a worker goroutine Start began: its record, and its body, Body
// (f; then it is removed, Ended called and, draining, AllEnded fired once
// none is live), made once in memory the set keeps.
type Run struct {
	Goroutine
	f    func()
	set  *Set
	Body func()
}

func (r *Run) run() {
	s := r.set
	r.f()
	s.Remove(r.Name, r.Kubelet)
	s.Ended(&r.Goroutine)
	if s.Draining && len(s.Live) == 0 {
		s.AllEnded.Fire()
	}
}

// Start records a worker goroutine called name of process kubelet, of
// pod uid, started at since, whose body is f: the Run to run it.
func (s *Set) Start(name string, kubelet int, uid types.UID, since time.Duration, f func()) *Run {
	r := s.runs.Next(func() *Run { r := &Run{}; r.Body = r.run; return r })
	*r = Run{Goroutine: Goroutine{Name: name, Kubelet: kubelet, UID: uid, Started: s.Started, Doing: "not yet run", Since: since},
		f: f, set: s, Body: r.Body}
	s.Started++
	s.Put(&r.Goroutine)
	return r
}

// Renew makes s a zero Set for a lane's next run (world.Renew), but for
// Ended and its runs, handed out again. Only for a caller that knows
// nothing holds a Run of the last run any more.
func (s *Set) Renew() {
	*s = Set{Ended: s.Ended, runs: s.runs}
	s.runs.Reset()
}

// At is the index in Live of the goroutine called name of kubelet process
// kubelet, -1 if none.
func (s *Set) At(name string, kubelet int) int {
	for i, g := range s.Live {
		if g.Kubelet == kubelet && g.Name == name {
			return i
		}
	}
	return -1
}

// Put makes g the live goroutine of its name and process, in place of
// one there (a map's assignment).
func (s *Set) Put(g *Goroutine) {
	if i := s.At(g.Name, g.Kubelet); i >= 0 {
		s.Live[i] = g
		return
	}
	s.Live = append(s.Live, g)
}

// Remove drops the live goroutine called name of process kubelet, if any
// (a map's delete).
func (s *Set) Remove(name string, kubelet int) {
	if i := s.At(name, kubelet); i >= 0 {
		s.Live = slices.Delete(s.Live, i, i+1)
	}
}

// Doing records what the goroutine running on s, of process kubelet, does
// now ("waiting on signal", "in", "woken by signal", "returned from") and
// on what.
func (set *Set) Doing(s *sim.Scheduler, kubelet int, doing, what string) {
	if i := set.At(s.Goroutine(), kubelet); i >= 0 {
		g := set.Live[i]
		g.Doing, g.What, g.Since = doing, what, s.Elapsed()
	}
}

// Signal is a pod worker's wake-up signal on S, of process Kubelet: its
// waits are recorded in Set as what the waiting worker last did.
type Signal struct {
	sim.Signal
	S       *sim.Scheduler
	Set     *Set
	Name    string
	Kubelet int
}

func (sg *Signal) Wait() bool {
	sg.Set.Doing(sg.S, sg.Kubelet, "waiting on signal", sg.Name)
	ok := sg.Signal.Wait()
	sg.Set.Doing(sg.S, sg.Kubelet, "woken by signal", sg.Name)
	return ok
}

// Stuck are the live goroutines in start order, each with what it was
// doing and since when (history.WorkerDrainEnded's Stuck).
func (s *Set) Stuck() []history.StuckWorker {
	var stuck []history.StuckWorker
	if len(s.Live) == 0 { // the drain's usual end: no sort, no iterator made
		return stuck
	}
	for _, g := range slices.SortedFunc(slices.Values(s.Live), func(a, b *Goroutine) int { return a.Started - b.Started }) {
		doing := g.Doing
		if g.What != "" {
			doing += " " + g.What
		}
		stuck = append(stuck, history.StuckWorker{Goroutine: g.Name, Kubelet: g.Kubelet,
			Waiting: fmt.Sprintf("%s since %v", doing, g.Since)})
	}
	return stuck
}

// DrainBound is how long the drain waits for the stopped workers.
// Shutdown's contract: a worker returns once its current sync call does,
// and starts no other (its signal is closed, its next pass finds no
// signal and exits). The longest call of the fake runtime is the B16 pull
// (UncancellablePull), then at most one fault-point sleep and one slow
// delay, each ≤ MaxDelay (fakeruntime/faultpoints.go: a point never makes a
// call longer than MaxDelay more than it could be anyway); the rest of a pass
// (the pod lock, the cache read, the status manager's share) takes no
// virtual time. The settle phase's own drain (drainTime) has normally
// ended every call already; one second is the floor of a call's delay.
func DrainBound(f plan.Faults) time.Duration {
	return f.UncancellablePull + 2*max(f.MaxDelay, time.Second)
}
