package sim

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// TestGoroutinesOfASlabAreTheirOwn: goroutines taken from the scheduler's
// slabs (newGoroutine), more than one slab's worth, each sleeping on its
// own alarm (held inside the goroutine), are distinct, keep their names
// and ids, and wake at their own times: a slab slot handed out twice, or
// an alarm shared, fails it.
func TestGoroutinesOfASlabAreTheirOwn(t *testing.T) {
	const n = 70 // three slabs and part of a fourth
	s := New(Options{Source: NewReplay(nil)})
	defer s.Close()
	var woke []string
	for i := range n {
		name := fmt.Sprintf("g%d", i)
		s.Go(name, func() {
			s.Sleep(time.Duration(n-i) * time.Millisecond)
			s.Sleep(time.Duration(n-i) * time.Millisecond) // the alarm re-armed
			woke = append(woke, fmt.Sprintf("%s@%v", name, s.Elapsed()))
		})
	}
	if err := s.Run(); err != nil {
		t.Fatal(err)
	}
	seen := map[*goroutine]bool{}
	for i, g := range s.all {
		if seen[g] || g.id != int32(i) || g.name != fmt.Sprintf("g%d", i) {
			t.Fatalf("goroutine %d: %p id %d name %q (seen before: %v)", i, g, g.id, g.name, seen[g])
		}
		seen[g] = true
	}
	if len(woke) != n {
		t.Fatalf("%d woke, want %d", len(woke), n)
	}
	for k, w := range woke {
		i := n - 1 - k
		if want := fmt.Sprintf("g%d@%v", i, 2*time.Duration(n-i)*time.Millisecond); w != want {
			t.Fatalf("wake %d: %s, want %s", k, w, want)
		}
	}
}

// TestSignalWaitersAfterReuse: a signal's waiters start in an array inside
// it, taken again once none waits; rounds of one, then three, then one
// waiter are each woken, oldest first, and a close wakes the rest.
func TestSignalWaitersAfterReuse(t *testing.T) {
	s := New(Options{Source: NewReplay(nil)})
	defer s.Close()
	sg := s.NewSignal("updates/a")
	var woke []string
	wait := func(name string) {
		s.Go(name, func() {
			ok := sg.Wait()
			woke = append(woke, fmt.Sprint(name, ok))
		})
	}
	s.Go("driver", func() {
		for _, round := range [][]string{{"a"}, {"b", "c", "d"}, {"e"}, {"f", "g"}} {
			for _, n := range round {
				wait(n)
			}
			s.Sleep(time.Second) // every waiter parks
			if len(round) < 2 {
				sg.Notify()
			} else {
				for range round[1:] {
					sg.Notify()
				}
			}
			s.Sleep(time.Second)
		}
		sg.Close()
	})
	if err := s.Run(); err != nil {
		t.Fatal(err)
	}
	want := "[atrue btrue ctrue dtrue etrue ffalse gfalse]"
	if got := fmt.Sprint(woke); got != want {
		t.Errorf("woke %s, want %s", got, want)
	}
}

// TestWithoutIsSlicesDelete: without and deleteAt, the scheduler's
// deletes from its goroutine lists (runnable, a mutex's and an event's
// waiters), leave what slices.Delete leaves, in order, at every position
// of lists of every length up to 6; without leaves a list without g as it
// is.
func TestWithoutIsSlicesDelete(t *testing.T) {
	gs := make([]goroutine, 7)
	for n := 0; n <= 6; n++ {
		list := func() []*goroutine {
			l := make([]*goroutine, n)
			for i := range l {
				l[i] = &gs[i]
			}
			return l
		}
		for i := 0; i < n; i++ {
			want := slices.Delete(list(), i, i+1)
			if got := deleteAt(list(), i); !slices.Equal(got, want) {
				t.Errorf("deleteAt(%d of %d) = %v, want %v", i, n, got, want)
			}
			if got := without(list(), &gs[i]); !slices.Equal(got, want) {
				t.Errorf("without(%d of %d) = %v, want %v", i, n, got, want)
			}
		}
		if got := without(list(), &gs[6]); !slices.Equal(got, list()) {
			t.Errorf("without(absent, %d) = %v", n, got)
		}
	}
}
