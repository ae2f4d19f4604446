package sim

import (
	"fmt"
	"math"
	"testing"
)

// atomicityBug plants a bug of depth 2 (two ordering constraints): the
// victim reads a flag and, one scheduling point later, acts on what it read;
// the bug fires only if (1) the victim reads before the intruder takes its
// first step and (2) the intruder then takes intruderSteps more steps and
// sets the flag inside the victim's window. Under fixed priorities (PCT with
// d=1) it cannot fire: (1) needs the victim above the intruder and (2) the
// reverse. Two noise goroutines add steps and runnable choices.
const (
	intruderSteps = 10
	noiseSteps    = 10
	pctGoroutines = 4
	pctK          = 2 + 1 + intruderSteps + 2*noiseSteps // scheduling points per run
)

func atomicityBug(s *Scheduler, found *bool) {
	flag, read, spoiled := false, false, false
	s.Go("victim", func() {
		s.Yield()
		seen := flag
		read = true
		s.Yield() // the window
		if !seen && flag && !spoiled {
			*found = true
		}
	})
	s.Go("intruder", func() {
		s.Yield()
		spoiled = !read
		for i := 0; i < intruderSteps; i++ {
			s.Yield()
		}
		flag = true
	})
	for n := 0; n < 2; n++ {
		s.Go(fmt.Sprintf("noise/%d", n), func() {
			for i := 0; i < noiseSteps; i++ {
				s.Yield()
			}
		})
	}
}

// detections runs the planted bug for seeds [0, runs) and returns how many
// runs found it and the first seed that did (-1 if none).
func detections(t *testing.T, st Strategy, runs int) (count, first int) {
	first = -1
	for seed := 0; seed < runs; seed++ {
		found := false
		s := New(Options{Source: NewPCG(uint64(seed)), Strategy: st})
		atomicityBug(s, &found)
		if err := s.Run(); err != nil {
			t.Fatal(err)
		}
		s.Close()
		if found {
			count++
			if first < 0 {
				first = seed
			}
		}
	}
	return count, first
}

// TestPCTFindsDepthTwoBugWithinItsBound checks PCT against its guarantee:
// a depth-2 bug among n goroutines in k steps is found by one run with
// probability p >= 1/(n·k), so R = ln(0.05)/ln(1-p) runs find it with 95%
// confidence. The seeds are fixed, so the test is deterministic; it fails
// if PCT misses the bug in R runs or if the random walk, given the same R
// runs, does not do noticeably worse (at most half PCT's detections).
func TestPCTFindsDepthTwoBugWithinItsBound(t *testing.T) {
	p := 1 / float64(pctGoroutines*pctK)
	runs := int(math.Ceil(math.Log(0.05) / math.Log(1-p)))
	pct, first := detections(t, PCT{Depth: 2, Steps: pctK}, runs)
	walk, _ := detections(t, RandomWalk{}, runs)
	t.Logf("bound p >= 1/%d, %d runs: PCT(d=2) found it %d times (first at seed %d), random walk %d times",
		pctGoroutines*pctK, runs, pct, first, walk)
	if pct == 0 {
		t.Fatalf("PCT(d=2) never found the planted bug in %d runs", runs)
	}
	if d1, _ := detections(t, PCT{Depth: 1, Steps: pctK}, runs); d1 != 0 {
		t.Fatalf("PCT(d=1) found a depth-2 bug %d times: the planted bug is not depth 2", d1)
	}
	if walk*2 > pct {
		t.Fatalf("random walk found it %d times, PCT %d: want the walk at most half as often", walk, pct)
	}
}

// TestPlantedBugIsReachable guards the PCT test: with a schedule written by
// hand (victim reads, then the intruder runs to its write), the bug fires;
// under the purely cooperative schedule it does not.
func TestPlantedBugIsReachable(t *testing.T) {
	// Choices: start the victim (0), keep it at its first yield (0), switch
	// to the intruder in the window (1: the first runnable goroutine after
	// the current one); the replay then answers 0 ("keep running"), so the
	// intruder runs to its write and the victim is next to finish.
	choices := []int{0, 0, 1}
	for _, c := range []struct {
		name    string
		choices []int
		want    bool
	}{{"cooperative", nil, false}, {"preempted in the window", choices, true}} {
		found := false
		s := New(Options{Source: NewReplay(c.choices)})
		atomicityBug(s, &found)
		if err := s.Run(); err != nil {
			t.Fatal(err)
		}
		s.Close()
		if found != c.want {
			t.Errorf("%s: bug found = %v, want %v\n%s", c.name, found, c.want, s.Trace())
		}
	}
}
