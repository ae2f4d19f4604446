package sim

import (
	"fmt"
	"time"
)

// contention is the non-trivial program the determinism, leak, fuzz and
// property tests run: ten goroutines contending on two mutexes, a signal, two events
// and timers, drawing jitter from the run's Source. Its trace depends on
// every scheduling choice, so two runs agree only if the scheduler is
// deterministic.
func contention(s *Scheduler) {
	mu := [2]*Mutex{s.NewMutex("mu/0"), s.NewMutex("mu/1")}
	work := s.NewSignal("work")
	stop := s.NewEvent("stop")
	started := s.NewEvent("started")
	clientsDone := s.NewEvent("clients/done")
	counter, running := 0, 6
	for i := 0; i < 6; i++ {
		s.Go(fmt.Sprintf("client/%d", i), func() {
			if i == 0 {
				started.Fire()
			} else if !started.WaitFor(time.Duration(i) * time.Millisecond) {
				s.Sleep(time.Millisecond)
			}
			for round := 0; round < 4; round++ {
				m := mu[(i+round)%2]
				m.Lock()
				counter++
				if s.Intn(3) == 0 {
					s.Sleep(time.Duration(1+s.Intn(5)) * time.Millisecond)
				}
				m.Unlock()
				work.Notify()
				s.Yield()
			}
			if running--; running == 0 {
				clientsDone.Fire()
			}
		})
	}
	s.GoDaemon("consumer", func() {
		for work.Wait() {
			mu[0].Lock()
			counter--
			mu[0].Unlock()
		}
	})
	s.Go("ticker", func() {
		for i := 0; i < 5; i++ {
			if stop.WaitFor(2 * time.Millisecond) {
				return
			}
			work.Notify()
		}
	})
	s.Go("stopper", func() {
		s.Sleep(7 * time.Millisecond)
		stop.Fire()
	})
	s.Go("closer", func() {
		stop.Wait()
		clientsDone.Wait() // no client may notify a closed signal
		s.Sleep(50 * time.Millisecond)
		mu[1].Lock()
		work.Close()
		mu[1].Unlock()
	})
}

// runProgram runs prog once under opts and returns the trace hash and the
// run's error.
func runProgram(opts Options, prog func(*Scheduler)) (string, error) {
	s := New(opts)
	defer s.Close()
	prog(s)
	err := s.Run()
	return s.TraceSHA256(), err
}
