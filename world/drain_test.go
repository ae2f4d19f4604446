package world

import (
	"fmt"
	"testing"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
)

// drainHistory runs a seed of f and returns its worker notes, whether the
// drain note came last and what the Settled event's Seq was, calling
// before(w) first.
func drainHistory(t *testing.T, f plan.Family, seed uint64, before func(*World)) (notes []history.Note, settledSeq int64, last history.Event) {
	t.Helper()
	st := plan.SeedStreams(seed)
	w := NewWorld(f.Generate(st.Plan), st.Schedule, st.Faults, sim.RandomWalk{})
	settledSeq = -1
	w.Observe(func(ev history.Event) {
		last = ev
		if ev.Kind == history.Settled {
			settledSeq = ev.Seq
		}
		if ev.Kind != history.Noted {
			return
		}
		switch ev.Note.(type) {
		case history.WorkerStarted, history.WorkerEnded, history.WorkerDrainEnded:
			notes = append(notes, ev.Note)
		default:
			if settledSeq >= 0 {
				t.Errorf("%s seed %d: note %T sent after Settled", f.Name, seed, ev.Note)
			}
		}
	})
	if before != nil {
		before(w)
	}
	if err := w.Run(); err != nil {
		t.Fatalf("%s seed %d: %v", f.Name, seed, err)
	}
	return notes, settledSeq, last
}

// TestDrainEndsEveryWorker: on the correct pod workers every worker
// goroutine noted as started is noted as ended, by the drain after Settled
// at the latest; the drain's note is the last event and lists no stuck
// worker; only worker notes follow Settled (20 seeds of every kubelet
// family, restarts included).
func TestDrainEndsEveryWorker(t *testing.T) {
	for _, f := range plan.KubeletFamilies() {
		for seed := range uint64(20) {
			notes, settledSeq, last := drainHistory(t, f, seed, nil)
			live, starts := map[string]bool{}, 0
			for _, n := range notes {
				switch n := n.(type) {
				case history.WorkerStarted:
					live[fmt.Sprint(n.Goroutine, n.Kubelet)] = true
					starts++
				case history.WorkerEnded:
					delete(live, fmt.Sprint(n.Goroutine, n.Kubelet))
				}
			}
			d, ok := last.Note.(history.WorkerDrainEnded)
			switch {
			case settledSeq < 0 || !ok:
				t.Fatalf("%s seed %d: the last event is %v, want the drain's note after Settled", f.Name, seed, last)
			case starts == 0:
				t.Fatalf("%s seed %d: no worker goroutine noted", f.Name, seed)
			case len(live) > 0 || len(d.Stuck) > 0:
				t.Fatalf("%s seed %d: still running %v, stuck %v", f.Name, seed, live, d.Stuck)
			case d.Waited > d.Bound:
				t.Fatalf("%s seed %d: the drain waited %v, past its bound %v", f.Name, seed, d.Waited, d.Bound)
			}
		}
	}
}

// TestDrainNamesAStuckWorker: a worker goroutine started through the
// world's runtime that waits on a signal nobody closes is still running
// when the drain's bound has passed; the drain's note names it and its
// wait, and the run still ends.
func TestDrainNamesAStuckWorker(t *testing.T) {
	f := plan.KubeletFamilies()[0]
	notes, _, last := drainHistory(t, f, 0, func(w *World) {
		rt := &worldRuntime{Runtime: w.RT, w: w}
		sig := rt.NewSignal("updates/zz")
		rt.Go("worker/zz", func() { sig.Wait() })
	})
	d, ok := last.Note.(history.WorkerDrainEnded)
	if !ok || len(d.Stuck) != 1 {
		t.Fatalf("the last event is %v, want a drain note with one stuck worker (notes %v)", last, notes)
	}
	want := history.StuckWorker{Goroutine: "worker/zz", Waiting: "waiting on signal updates/zz since 0s"}
	if d.Stuck[0] != want || d.Waited != d.Bound {
		t.Fatalf("got %+v after %v (bound %v), want %+v after the whole bound", d.Stuck[0], d.Waited, d.Bound, want)
	}
}
