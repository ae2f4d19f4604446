package sim

import (
	"iter"
	"testing"
)

// alternate always chooses the other goroutine, so every scheduling point
// of a two-goroutine ping-pong is a real handoff.
type alternate struct{}

func (alternate) Intn(n int) int { return n - 1 }

// handoffsPerRun keeps one run's trace small, as a scenario's would be.
const handoffsPerRun = 10_000

// BenchmarkDecision reports the cost of one scheduling decision that hands
// the baton to another goroutine: two goroutines Yield in turn.
func BenchmarkDecision(b *testing.B) {
	b.ReportAllocs()
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

// BenchmarkRawHandoff is the floor BenchmarkDecision is measured against:
// two real goroutines handing a token back and forth over channels, the
// way sim hands the baton, with no scheduling logic at all.
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
	for i := 0; i < b.N; i++ {
		next()
	}
}
