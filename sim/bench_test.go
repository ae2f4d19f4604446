package sim

import (
	"iter"
	"testing"

	"github.com/podsim/podsim/internal/cputime"
)

// alternate always chooses the other goroutine, so every scheduling point
// of a two-goroutine ping-pong is a real handoff.
type alternate struct{}

func (alternate) Intn(n int) int { return n - 1 }

// handoffsPerRun keeps one run's trace small, as a scenario's would be.
const handoffsPerRun = 10_000

// BenchmarkDecision reports the cost of one scheduling decision that hands
// the baton to another goroutine: two goroutines Yield in turn. With the
// coroutine baton that is one BenchmarkCoroutineRoundTrip plus the
// strategy's pick and a trace record.
func BenchmarkDecision(b *testing.B) {
	b.ReportAllocs()
	defer reportCPU(b)()
	done := 0
	for done < b.N {
		n := min(handoffsPerRun, b.N-done)
		s := New(Options{Source: alternate{}, HotLoop: -1})
		for g := 0; g < 2; g++ {
			s.Go([]string{"ping", "pong"}[g], func() {
				for i := 0; i < n/2; i++ {
					s.Yield()
				}
			})
		}
		if err := s.Run(); err != nil {
			b.Fatal(err)
		}
		s.Close()
		done += n
	}
}

// BenchmarkRawHandoff is the floor of the channel baton sim used before
// coroutines: two real goroutines handing a token back and forth over
// channels, with no scheduling logic at all (an op is one channel handoff,
// half a round trip).
func BenchmarkRawHandoff(b *testing.B) {
	ping, pong := make(chan struct{}, 1), make(chan struct{}, 1)
	finished := make(chan struct{})
	go func() {
		for range pong {
			ping <- struct{}{}
		}
		close(finished)
	}()
	b.ResetTimer()
	defer reportCPU(b)()
	for i := 0; i < b.N; i += 2 {
		pong <- struct{}{}
		<-ping
	}
	b.StopTimer()
	close(pong)
	<-finished
}

// BenchmarkCoroutineRoundTrip is the floor of a coroutine baton: one
// iter.Pull next/yield round trip (two switches between runtime coroutines,
// no Go scheduler involved) per op, which is what one handoff costs when
// a scheduler loop resumes one coroutine at a time.
func BenchmarkCoroutineRoundTrip(b *testing.B) {
	next, stop := iter.Pull(func(yield func(struct{}) bool) {
		for yield(struct{}{}) {
		}
	})
	defer stop()
	b.ResetTimer()
	defer reportCPU(b)()
	for i := 0; i < b.N; i++ {
		next()
	}
}

// reportCPU adds cpu-ns/op, the process's CPU time (every thread) per op,
// to a benchmark: on a shared machine wall time per op counts the time
// other jobs held the cores, CPU time only what the benchmark used. Call
// as defer reportCPU(b)() right before the timed loop.
func reportCPU(b *testing.B) func() {
	start := cputime.Process()
	return func() {
		if used := cputime.Process() - start; used > 0 && start > 0 {
			b.ReportMetric(float64(used.Nanoseconds())/float64(b.N), "cpu-ns/op")
		}
	}
}
