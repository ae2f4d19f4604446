package run

import (
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/internal/cputime"
	"github.com/podsim/podsim/model/check"
	"github.com/podsim/podsim/oracle/linearize"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
	"github.com/podsim/podsim/world"
)

// benchPlan is a swarm plan scaled up: pods pods (a third static, three
// to a full name), actions actions from three clients.
func benchPlan(src sim.Source, pods, actions int) plan.Plan {
	uids := make([]types.UID, pods)
	shapes := map[types.UID]plan.Action{}
	for i := range uids {
		uids[i] = types.UID(fmt.Sprintf("p%02d", i))
		shapes[uids[i]] = plan.Action{Static: i%3 == 2, Name: fmt.Sprintf("web%d", i/9), SpecGrace: int64(pickOf(src, 1, 5, 30))}
	}
	p := plan.Plan{Family: "bench", Clients: 3, Faults: plan.Faults{ErrorRate: 50, SlowRate: 200, MaxDelay: 3 * time.Second,
		IgnoreCancel: 500, TerminalRate: 50}}
	plan.SwarmActions(src, &p, uids, shapes, actions, 3, 250*time.Millisecond)
	return p
}

// benchHistory records a history of about ops operations over pods pods,
// from the first plan seed whose history the witness accepts with its
// markers (a history that hits a stale worker's
// marker would measure a fallback instead).
func benchHistory(tb testing.TB, ops, pods int) history.History {
	tb.Helper()
	for planSeed := uint64(0); planSeed < 20; planSeed++ {
		if h := sizedHistory(tb, planSeed, ops, pods); linearize.CheckHistory(h, linearize.Options{}).Mode == "markers" {
			if planSeed > 0 {
				tb.Logf("ops=%d pods=%d: plan seed %d (earlier ones fall back)", ops, pods, planSeed)
			}
			return h
		}
	}
	tb.Fatalf("ops=%d pods=%d: no plan seed in 20 gives a history the witness accepts", ops, pods)
	return history.History{}
}

// sizedHistory scales the plan until the history is within 10% of ops.
func sizedHistory(tb testing.TB, planSeed uint64, ops, pods int) history.History {
	actions := max(ops/6, 1)
	for try := 0; ; try++ {
		src := sim.NewPCG(sim.Derive(planSeed, fmt.Sprintf("bench-plan/%d/%d", ops, pods)))
		w := world.NewWorld(benchPlan(src, pods, actions), sim.NewPCG(1), sim.NewPCG(2), sim.RandomWalk{})
		rec := history.NewRecorder()
		w.Observe(func(ev history.Event) { rec.Observe(&ev) })
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
		unmarked, _ := h.Unmarked()
		for _, path := range []struct {
			name string
			run  func()
		}{
			{"witness", func() { linearize.CheckHistory(h, linearize.Options{}) }},
			{"closure", func() { check.Replay(unmarked) }},
			{"porcupine", func() {
				if v := linearize.CheckHistory(h, linearize.Options{ForcePorcupine: true, PorcupineTimeout: time.Minute}); v.Porcupine != "Ok" {
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
	swarm := plan.Family{Name: "swarm", Generate: plan.GenerateSwarm}
	run := func(seed uint64, observe func(w *world.World) func(error)) {
		st := plan.SeedStreams(seed)
		w := world.NewWorld(swarm.Generate(st.Plan), st.Schedule, st.Faults, sim.RandomWalk{})
		finish := observe(w)
		err := w.Run()
		if finish != nil {
			finish(err)
		}
	}
	for _, bc := range []struct {
		name    string
		observe func(w *world.World) func(error)
	}{
		{"world", func(*world.World) func(error) { return nil }},
		{"recorder", func(w *world.World) func(error) {
			r := history.NewRecorder()
			w.Observe(func(ev history.Event) { r.Observe(&ev) })
			return func(error) { r.History() }
		}},
		{"linearizability", func(w *world.World) func(error) {
			o, v := linearize.New(linearize.Options{}), w.View()
			w.Observe(func(ev history.Event) { o.Observe(v, &ev) })
			return func(err error) { o.Finish(v, err) }
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
