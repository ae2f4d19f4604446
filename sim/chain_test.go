package sim

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// cycle answers its choices in turn, over and over.
type cycle struct {
	c []int
	i int
}

func (c *cycle) Intn(n int) int {
	v := c.c[c.i%len(c.c)] % n
	c.i++
	return v
}

// countResumes makes every goroutine of s count its resumes in *n: the
// coroutine switches into it (a switch out of it is a yield or its exit).
func countResumes(s *Scheduler, n *int) {
	for _, g := range s.all {
		resume := g.resume
		g.resume = func() (struct{}, bool) { *n++; return resume() }
	}
}

// TestHandoffResumesTheHolderDirectly: the goroutine that hands the baton
// to one not under it in the chain of resumed coroutines resumes it
// itself, and one handing it to a goroutine under it yields down to it,
// so a handoff costs one switch per link instead of a yield to the driver
// and a resume from it. Two goroutines handing the baton back and forth
// resume each other once per two handoffs (the other handoff is a yield);
// three in a cycle A, B, C, A resume twice per three handoffs (C yields
// through B back to A). A driver that resumed every holder itself would
// resume once per handoff. Every run gives the trace the watchdog's
// driver gives, and the same either way.
func TestHandoffResumesTheHolderDirectly(t *testing.T) {
	for _, c := range []struct {
		name    string
		src     func() Source
		names   []string
		maxRate float64 // resumes per handoff
	}{
		// alternate always picks the other one of two.
		{"ping-pong", func() Source { return alternate{} }, []string{"ping", "pong"}, 0.51},
		// From A, choice 1 is B; from B, 2 is C; from C, 1 is A.
		{"cycle", func() Source { return &cycle{c: []int{1, 2, 1}} }, []string{"a", "b", "c"}, 0.68},
	} {
		var traces []string
		for _, hot := range []time.Duration{-1, DefaultHotLoop} {
			s := New(Options{Source: c.src(), HotLoop: hot})
			for _, name := range c.names {
				s.Go(name, func() {
					for range 300 {
						s.Yield()
					}
				})
			}
			resumes := 0
			countResumes(s, &resumes)
			if err := s.Run(); err != nil {
				t.Fatal(err)
			}
			handoffs := s.handoffs - 1 // the watched driver's end of the segment is no handoff
			if hot < 0 {
				handoffs = s.handoffs
			}
			if handoffs < 500 || float64(resumes) > c.maxRate*float64(handoffs) {
				t.Errorf("%s (watchdog %v): %d resumes for %d handoffs, want at most %.2f per handoff",
					c.name, hot, resumes, handoffs, c.maxRate)
			}
			traces = append(traces, s.Trace())
			s.Close()
		}
		if traces[0] != traces[1] {
			t.Errorf("%s: the traces with and without the watchdog differ", c.name)
		}
	}
}

// TestHotLoopOverAChain: a goroutine stuck in a hot loop after another
// resumed it directly (that one waits under it in the chain, in
// awaitBaton) is reported alone, with its own stack.
func TestHotLoopOverAChain(t *testing.T) {
	s := New(Options{Source: NewReplay([]int{0, 1}), HotLoop: testBound})
	release := make(chan struct{})
	s.Go("calm", func() { s.Yield() }) // first (choice 0); hands the baton to spinner (choice 1)
	s.Go("spinner", func() { plantedHotLoop(release) })
	err := s.Run()
	close(release)
	var he *HotLoopError
	if !errors.As(err, &he) || he.Goroutine != "spinner" {
		t.Fatalf("got %v, want a *HotLoopError of spinner", err)
	}
	if !strings.Contains(he.Stack, "plantedHotLoop") || strings.Count(he.Stack, "(*Scheduler).trampoline") != 1 {
		t.Fatalf("want the stack of spinner alone, got:\n%s", he.Stack)
	}
	s.Close()
}
