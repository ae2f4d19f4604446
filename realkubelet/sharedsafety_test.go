package realkubelet

import (
	"flag"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/oracle"
	"github.com/podsim/podsim/oracle/safety"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/realkubelet/script"
)

var sweepSafety = flag.Int("sweep.safety", 0, "TestSharedSafetySweep: seeds per family (0 = skip)")

// TestSharedSafetySweep runs -sweep.safety seeds of every family (with
// and without held wake-ups) with the shared step-invariant oracle
// (oracle/safety) fed the driver's events and the critical sections
// lockstep reconstructs, next to the direct checks, and prints what the
// shared oracle reports per family and invariant, and in how many runs
// the direct checks found nothing, once with Known from the public queries
// alone and once widened (knownView). It is the measurement behind the
// choice written in checks.go ("Why these checks are direct"); it never
// fails.
func TestSharedSafetySweep(t *testing.T) {
	if *sweepSafety == 0 {
		t.Skip("run with -sweep.safety N")
	}
	var report strings.Builder
	for _, named := range []bool{false, true} {
		fmt.Fprintf(&report, "Known from the public queries only%s:\n",
			map[bool]string{true: ", and before the first SyncKnownPods from the UIDs the driver's UpdatePod calls named"}[named])
		sharedSafetySweep(t, &report, named)
	}
	t.Log("\n" + report.String())
}

func sharedSafetySweep(t *testing.T, report *strings.Builder, named bool) {
	total, runs, alone := map[string]int{}, 0, 0
	for _, f := range plan.KubeletFamilies() {
		inv, first := map[string]int{}, map[string]string{}
		famAlone := 0 // runs where only the shared oracle found something
		for i := range 2 * *sweepSafety {
			seed, hold := uint64(1+i%*sweepSafety), i >= *sweepSafety
			var r Result
			var viols []history.Violation
			synctest.Test(t, func(t *testing.T) { r, viols = runWithSharedSafety(f, seed, hold, named) })
			runs++
			for _, v := range viols {
				total[v.Invariant]++
				if inv[v.Invariant]++; first[v.Invariant] == "" {
					first[v.Invariant] = fmt.Sprintf("seed %d hold=%v: %s", seed, hold, v.Message)
				}
			}
			if len(viols) > 0 && len(r.Findings) == 0 {
				famAlone++
			}
		}
		alone += famAlone
		fmt.Fprintf(report, "%-32s shared safety: %v; runs with no direct finding: %d\n", f.Name, inv, famAlone)
		for _, k := range slices.Sorted(maps.Keys(first)) {
			fmt.Fprintf(report, "    first %s: %s\n", k, first[k])
		}
	}
	fmt.Fprintf(report, "total: %d runs, shared safety %v, on %d runs with no direct finding\n\n", runs, total, alone)
}

// runWithSharedSafety is RunSeedWith with the shared safety oracle
// attached through lockstep; inside a bubble.
func runWithSharedSafety(f plan.Family, seed uint64, hold, named bool) (Result, []history.Violation) {
	st := plan.SeedStreams(seed)
	d := newDriver(RunOptions{HoldWakes: hold})
	l := &lockstep{d: d, safety: safety.New(), names: map[int]string{}}
	if named {
		l.named = map[types.UID]int{}
	}
	d.h.Oracles = append(d.h.Oracles, l)
	d.atRest = l.rest
	d.Generate(f.Generate(st.Plan), st.Schedule, st.Faults, hold)
	d.planSteps = len(d.Moves)
	r := d.Finish(f.Name, seed)
	return r, l.safety.Finish(d.View(), nil)
}

// lockstep feeds the shared safety oracle the driver's events with the
// pod-lock critical sections the real target cannot show, reconstructed
// per driver step (the driver runs synchronously; between steps nothing
// runs): each UpdatePod or SyncKnownPods call gets a critical section of
// its own, under a goroutine name of its own, closed when the step is at
// rest (the state the View shows then is the state after the call and
// everything the workers did in that step); the fires of the step go in
// the first one; the released or woken worker gets one; and every callback
// that begins is preceded by the worker's take (and, for a terminating
// callback, its acknowledgement). The oracle's own numbering is lockstep's.
type lockstep struct {
	d       *Driver
	safety  oracle.Oracle
	seq     int64
	names   map[int]string // renamed goroutine by call ID
	pending []string       // the step's calls awaiting their section
	fires   []history.Event
	// named, if not nil, widens Known before the first SyncKnownPods (see
	// knownView): 1 = an UpdatePod named the UID, 2 = its answers since
	// differed from an unknown UID's (a later return to those is removal).
	named map[types.UID]int
}

func (l *lockstep) Observe(v oracle.View, p *history.Event) {
	ev := *p // rewritten below: the shared event stays as it is
	switch ev.Kind {
	case history.LockAcquired:
		return // the tape's "the driver holds the lock for good"
	case history.ClientCall:
		switch ev.Input.(type) {
		case ops.UpdatePod, ops.SyncKnownPods:
			if u, ok := ev.Input.(ops.UpdatePod); ok && l.named != nil {
				l.named[types.UID(u.Pod.UID)] = 1
			}
			g := fmt.Sprintf("%s/%d", ev.Goroutine, ev.ID)
			l.names[ev.ID] = g
			l.pending = append(l.pending, g)
			ev.Goroutine = g
		}
	case history.ClientReturn:
		if g, ok := l.names[ev.ID]; ok {
			ev.Goroutine = g
			delete(l.names, ev.ID)
		}
	case history.Fired:
		l.fires = append(l.fires, ev)
		return
	case history.CallbackBegin:
		if b, ok := ev.Input.(ops.SyncBegin); ok {
			l.section(v, ev.Goroutine, nil)
			if b.Fn == ops.SyncTerminatingPod || b.Fn == ops.SyncTerminatingRuntimePod {
				l.section(v, ev.Goroutine, nil)
			}
		}
	}
	l.forward(v, ev)
}

// rest closes the step's critical sections (Driver.atRest).
func (l *lockstep) rest() {
	v := l.d.View()
	gs := l.pending
	if m := l.d.lastMove(); m.Kind == script.MoveRelease || m.Kind == script.MoveWake {
		gs = append(gs, "worker/"+string(m.UID))
	} else if len(gs) == 0 && len(l.fires) > 0 {
		gs = []string{"driver"}
	}
	for i, g := range gs {
		var inside []history.Event
		if i == 0 {
			inside = l.fires
		}
		l.section(v, g, inside)
	}
	l.pending, l.fires = nil, nil
}

func (l *lockstep) section(v oracle.View, g string, inside []history.Event) {
	at := v.Elapsed()
	l.forward(v, history.Event{Kind: history.LockAcquired, Goroutine: g, At: at})
	for _, ev := range inside {
		l.forward(v, ev)
	}
	l.forward(v, history.Event{Kind: history.LockReleasing, Goroutine: g, At: at, Probe: l.probe()})
}

func (l *lockstep) forward(v oracle.View, ev history.Event) {
	l.seq++
	ev.Seq = l.seq
	l.safety.Observe(v, &ev)
}

// probe is the driver's Probe, with Known widened (when l.named is set)
// before the first SyncKnownPods, when a record not asked to terminate
// answers exactly like an unknown UID: a UID an UpdatePod named is known
// until its answers, having differed from an unknown UID's, return to them
// (a runtime-only record removing itself). It measures how much of what
// the shared oracle reports comes from that ambiguity alone.
func (l *lockstep) probe() *history.Probe {
	p := l.d.Probe()
	if l.named == nil || p.PodsSynced {
		return p
	}
	for i, pa := range p.Pods {
		switch n := l.named[pa.UID]; {
		case n == 0:
		case pa.Known:
			l.named[pa.UID] = 2
		case n == 2:
			delete(l.named, pa.UID)
		default:
			p.Pods[i].Known = true
		}
	}
	return p
}

func (l *lockstep) Finish(v oracle.View, err error) []history.Violation {
	return l.safety.Finish(v, err)
}
