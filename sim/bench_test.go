package sim

import (
	"iter"
	"testing"
	"time"

	"github.com/podsim/podsim/internal/cputime"
)

// alternate always chooses the other goroutine, so every scheduling point
// of a two-goroutine ping-pong is a real handoff.
type alternate struct{}

func (alternate) Intn(n int) int { return n - 1 }

// handoffsPerRun keeps one run's trace small, as a scenario's would be.
const handoffsPerRun = 10_000

// BenchmarkDecision reports the cost of one Yield that hands the baton to
// another goroutine: two goroutines Yield in turn, so an op is a
// scheduling decision (step count, step bound, the strategy's pick), one
// handoff (a BenchmarkCoroutineRoundTrip: the holder yields to the driver
// loop, which resumes the other) and the Yield's trace record. Each run
// hands the baton handoffsPerRun times; starting it and closing it are
// counted too (a few microseconds a run, well under a nanosecond an op).
func BenchmarkDecision(b *testing.B) { benchHandoffs(b, -1, (*Scheduler).Yield) }

// BenchmarkDecisionWatched is BenchmarkDecision with the hot-loop watchdog
// on (DefaultHotLoop, as every scenario runs): the driver loop runs on a
// driver carrier, Run's goroutine suspended in it, and each handoff is
// published to the watcher with an atomic swap (watchdog.go).
func BenchmarkDecisionWatched(b *testing.B) { benchHandoffs(b, DefaultHotLoop, (*Scheduler).Yield) }

// BenchmarkDecisionNoRecord is BenchmarkDecision without the trace record:
// the goroutines call the scheduling point itself, so an op is the
// decision and the handoff alone. The difference between the two is what
// a trace record and Yield's own call cost in this loop
// (BenchmarkTraceRecord has the record alone).
func BenchmarkDecisionNoRecord(b *testing.B) { benchHandoffs(b, -1, (*Scheduler).point) }

// benchHandoffs runs two goroutines that call op in turn under a source
// that always picks the other one, b.N calls in all, with the watchdog's
// bound hotLoop (negative: off).
func benchHandoffs(b *testing.B, hotLoop time.Duration, op func(*Scheduler)) {
	b.ReportAllocs()
	defer reportCPU(b)()
	done := 0
	for done < b.N {
		n := min(handoffsPerRun, b.N-done)
		s := New(Options{Source: alternate{}, HotLoop: hotLoop})
		for g := 0; g < 2; g++ {
			s.Go([]string{"ping", "pong"}[g], func() {
				for i := 0; i < n/2; i++ {
					op(s)
				}
			})
		}
		if err := s.Run(); err != nil {
			b.Fatal(err)
		}
		s.Close()
		s.Recycle() // as run.RunSeed does: the next run reuses the trace chunks
		done += n
	}
}

// BenchmarkTraceRecord is one trace record alone, appended to a fresh
// scheduler's trace handoffsPerRun records at a time, as in
// BenchmarkDecision: the store, the trace's growth and the garbage it
// leaves, with no scheduling around it.
func BenchmarkTraceRecord(b *testing.B) {
	b.ReportAllocs()
	defer reportCPU(b)()
	done := 0
	for done < b.N {
		n := min(handoffsPerRun, b.N-done)
		s := New(Options{HotLoop: -1})
		for i := 0; i < n; i++ {
			s.rec(opYield, -1, 0)
		}
		if s.TraceLen() != n {
			b.Fatalf("got %d records, want %d", s.TraceLen(), n)
		}
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

// BenchmarkTraceSHA256 is hashing a finished run's trace, as every seed
// of a sweep does: the contention program of seed 1, about 300 records of
// every kind (locks, signals, events, sleeps, clock advances, draws),
// hashed b.N times. It reports cpu-ns/op and the CPU per record.
func BenchmarkTraceSHA256(b *testing.B) {
	s := New(Options{Source: NewPCG(1), HotLoop: -1})
	contention(s)
	if err := s.Run(); err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	b.ReportAllocs()
	b.ResetTimer()
	start := cputime.Process()
	for i := 0; i < b.N; i++ {
		_ = s.TraceSHA256()
	}
	if used := cputime.Process() - start; used > 0 && start > 0 {
		b.ReportMetric(float64(used.Nanoseconds())/float64(b.N), "cpu-ns/op")
		b.ReportMetric(float64(used.Nanoseconds())/float64(b.N)/float64(s.TraceLen()), "cpu-ns/record")
	}
}

// BenchmarkSegment is the cost of a whole tiny run, one op each: New, two
// goroutines, one handoff each way, Run and Close, with the watchdog off
// and on (DefaultHotLoop, as every scenario runs). The difference is what
// watching one segment costs; a scenario seed is one segment.
func BenchmarkSegment(b *testing.B) {
	for _, c := range []struct {
		name    string
		hotLoop time.Duration
	}{{"off", -1}, {"watched", DefaultHotLoop}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			defer reportCPU(b)()
			for i := 0; i < b.N; i++ {
				s := New(Options{Source: alternate{}, HotLoop: c.hotLoop})
				for _, name := range []string{"ping", "pong"} {
					s.Go(name, s.Yield)
				}
				if err := s.Run(); err != nil {
					b.Fatal(err)
				}
				s.Close()
				s.Recycle()
			}
		})
	}
}
