package run

import (
	"os"
	"runtime/debug"
	"testing"

	"github.com/podsim/podsim/internal/cputime"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
)

// BenchmarkScenario reports the throughput of each family: one op is one
// seed, run and judged by every oracle (workers' invariants, safety,
// linearizability with the witness and porcupine fallback, liveness).
// seeds/s is per second of wall time; seeds/cpu-s per second of the
// process's CPU time (all threads: the garbage collector's too), which is
// the figure per core and does not depend on what else the machine runs.
// The collector runs at simrun's pace (SweepGCPercent) unless GOGC is set:
// GOGC=100 gives the figures before 2026-11-26 (docs/performance.md).
// The seeds run on one Lane, as a sweep's lane runs them (before session
// 12 of issue 19 each was built afresh: RunSeed).
//
// The runs are Lean, as those of `simrun run` without --json (the table
// sweep, the default): no trace hash or coverage tuples for a passing
// seed. Before session 16 of issue 19 they were not:
// BenchmarkFullScenario measures that path, which --json and the guided
// loop's runs still take.
//
//	go test -run '^$' -bench BenchmarkScenario -benchtime 2000x ./run
func BenchmarkScenario(b *testing.B) { benchmarkScenario(b, CheckOptions{Lean: true}) }

// BenchmarkFullScenario is BenchmarkScenario with every output: each
// seed's trace hash and coverage tuples, as `simrun run --json` runs it.
//
//	go test -run '^$' -bench BenchmarkFullScenario -benchtime 2000x ./run
func BenchmarkFullScenario(b *testing.B) { benchmarkScenario(b, CheckOptions{}) }

func benchmarkScenario(b *testing.B, opts CheckOptions) {
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(SweepGCPercent))
	}
	for _, f := range plan.Families() {
		b.Run(f.Name, func(b *testing.B) {
			var lane Lane
			start := cputime.Process()
			for i := 0; i < b.N; i++ {
				if r := lane.RunSeed(f, uint64(i), sim.RandomWalk{}, opts); r.Failed() {
					b.Fatal(r)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "seeds/s")
			if used := cputime.Process() - start; used > 0 {
				b.ReportMetric(float64(b.N)/used.Seconds(), "seeds/cpu-s")
			}
		})
	}
}
