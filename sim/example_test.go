package sim_test

import (
	"fmt"
	"time"

	"github.com/podsim/podsim/sim"
)

// Two clients race for a lock; the seed decides who wins, and the same seed
// always decides the same way.
func Example() {
	for _, seed := range []uint64{1, 2, 1} {
		s := sim.New(sim.Options{Source: sim.NewPCG(seed)})
		mu := s.NewMutex("podLock")
		var order []string
		for _, name := range []string{"client/a", "client/b"} {
			s.Go(name, func() {
				s.Sleep(time.Second)
				mu.Lock()
				order = append(order, name)
				mu.Unlock()
			})
		}
		if err := s.Run(); err != nil {
			fmt.Println(err)
		}
		s.Close()
		fmt.Println(seed, order, s.Elapsed())
	}
	// Output:
	// 1 [client/b client/a] 1s
	// 2 [client/a client/b] 1s
	// 1 [client/b client/a] 1s
}

// A goroutine waiting on a mutex that is never released is reported with
// who holds it.
func Example_deadlock() {
	s := sim.New(sim.Options{})
	defer s.Close()
	mu := s.NewMutex("podLock")
	s.Go("worker/a", func() {
		mu.Lock()
		s.NewEvent("never").Wait()
	})
	s.Go("client/1", func() {
		s.Sleep(time.Second)
		mu.Lock()
	})
	fmt.Println(s.Run())
	// Output:
	// sim: deadlock at 1s after 4 steps: 2 goroutines blocked
	//   client/1: lock podLock (held by worker/a)
	//   worker/a: wait event never
}
