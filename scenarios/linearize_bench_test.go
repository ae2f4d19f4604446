package scenarios

import (
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/internal/cputime"
	"github.com/podsim/podsim/model/check"
	"github.com/podsim/podsim/sim"
)

// benchPlan is a swarm plan scaled up: pods pods (a third static, three
// to a full name), actions actions from three clients.
func benchPlan(src sim.Source, pods, actions int) Plan {
	uids := make([]types.UID, pods)
	shapes := map[types.UID]Action{}
	for i := range uids {
		uids[i] = types.UID(fmt.Sprintf("p%02d", i))
		shapes[uids[i]] = Action{Static: i%3 == 2, Name: fmt.Sprintf("web%d", i/9), SpecGrace: int64(pick(src, 1, 5, 30))}
	}
	p := Plan{Family: "bench", Clients: 3, Faults: Faults{ErrorRate: 50, SlowRate: 200, MaxDelay: 3 * time.Second,
		IgnoreCancel: 500, TerminalRate: 50}}
	swarmActions(src, &p, uids, shapes, actions, 3, 250*time.Millisecond)
	return p
}

// benchHistory records a history of about ops operations over pods pods,
// from the first plan seed whose history the witness accepts with its
// markers (a history that hits a stale worker's
// marker would measure a fallback instead).
func benchHistory(tb testing.TB, ops, pods int) History {
	tb.Helper()
	for planSeed := uint64(0); planSeed < 20; planSeed++ {
		if h := sizedHistory(tb, planSeed, ops, pods); replayWitness(h).Mode == "markers" {
			if planSeed > 0 {
				tb.Logf("ops=%d pods=%d: plan seed %d (earlier ones fall back)", ops, pods, planSeed)
			}
			return h
		}
	}
	tb.Fatalf("ops=%d pods=%d: no plan seed in 20 gives a history the witness accepts", ops, pods)
	return History{}
}

// sizedHistory scales the plan until the history is within 10% of ops.
func sizedHistory(tb testing.TB, planSeed uint64, ops, pods int) History {
	actions := max(ops/6, 1)
	for try := 0; ; try++ {
		src := sim.NewPCG(sim.Derive(planSeed, fmt.Sprintf("bench-plan/%d/%d", ops, pods)))
		w := NewWorld(benchPlan(src, pods, actions), sim.NewPCG(1), sim.NewPCG(2), sim.RandomWalk{})
		rec := NewRecorder()
		w.Observe(rec)
		if err := w.Run(); err != nil {
			tb.Fatal(err)
		}
		h := rec.History()
		if n := len(h.Ops); try == 4 || (n >= ops*9/10 && n <= ops*11/10) {
			return h
		}
		actions = max(actions*ops/max(len(h.Ops), 1), 1)
	}
}

// BenchmarkCheck measures checking against history size and pod count:
// the witness replay with worker-step markers (the oracle's path), the
// replay without them (Replay explores the hidden steps), and porcupine
// forced on the same history.
func BenchmarkCheck(b *testing.B) {
	for _, size := range []struct{ ops, pods int }{
		{100, 1}, {100, 5}, {1000, 1}, {1000, 10}, {1000, 50}, {10000, 1}, {10000, 10}, {10000, 50},
	} {
		h := benchHistory(b, size.ops, size.pods)
		name := fmt.Sprintf("ops=%d/pods=%d", size.ops, size.pods)
		unmarked, _ := h.unmarked()
		for _, path := range []struct {
			name string
			run  func()
		}{
			{"witness", func() { CheckHistory(h, CheckOptions{}) }},
			{"closure", func() { check.Replay(unmarked) }},
			{"porcupine", func() {
				if v := CheckHistory(h, CheckOptions{ForcePorcupine: true, PorcupineTimeout: time.Minute}); v.Porcupine != "Ok" {
					b.Logf("%s: porcupine %s", name, v.Porcupine)
				}
			}},
		} {
			b.Run(name+"/"+path.name, func(b *testing.B) {
				start := cputime.Process()
				for b.Loop() {
					path.run()
				}
				if used := cputime.Process() - start; used > 0 {
					b.ReportMetric(float64(used.Nanoseconds())/float64(b.N), "cpu-ns/op")
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(h.Ops)), "ns/operation")
				b.ReportMetric(float64(len(h.Ops)), "operations")
			})
		}
	}
}

// BenchmarkRunSeed measures what recording and checking add to a seed:
// the bare world (no observer, so no events are even built), the world with
// a Recorder, with the linearizability oracle (record and check), and
// RunSeed with every default oracle. Seeds cycle over the first 1,000
// swarm seeds.
func BenchmarkRunSeed(b *testing.B) {
	swarm := Family{Name: "swarm", Generate: GenerateSwarm}
	run := func(seed uint64, observe func(w *World) func(error)) {
		st := SeedStreams(seed)
		w := NewWorld(swarm.Generate(st.Plan), st.Schedule, st.Faults, sim.RandomWalk{})
		finish := observe(w)
		err := w.Run()
		if finish != nil {
			finish(err)
		}
	}
	for _, bc := range []struct {
		name    string
		observe func(w *World) func(error)
	}{
		{"world", func(*World) func(error) { return nil }},
		{"recorder", func(w *World) func(error) {
			r := NewRecorder()
			w.Observe(r)
			return func(error) { r.History() }
		}},
		{"linearizability", func(w *World) func(error) {
			o := newLinearizability(CheckOptions{})
			w.Observe(o)
			return func(err error) { o.Finish(w, err) }
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			seed := uint64(0)
			for b.Loop() {
				run(seed%1000, bc.observe)
				seed++
			}
		})
	}
	b.Run("RunSeed", func(b *testing.B) {
		seed := uint64(0)
		for b.Loop() {
			RunSeed(swarm, seed%1000, sim.RandomWalk{}, CheckOptions{})
			seed++
		}
	})
}
