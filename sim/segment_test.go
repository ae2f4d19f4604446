package sim

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestStepwiseDriving drives a simulation from the test goroutine one
// command at a time, the way narrated scripts do.
func TestStepwiseDriving(t *testing.T) {
	s := New(Options{Source: NewReplay(nil)})
	defer s.Close()
	sig := s.NewSignal("updates/a")
	syncs := 0
	s.GoDaemon("worker/a", func() {
		for sig.Wait() {
			syncs++
		}
	})
	for i, want := range []int{1, 2, 3} {
		s.Go("client", func() { sig.Notify() })
		if err := s.RunUntilIdle(); err != nil {
			t.Fatalf("command %d: %v", i, err)
		}
		if syncs != want {
			t.Fatalf("after command %d: got %d syncs, want %d", i, syncs, want)
		}
	}
	if s.Elapsed() != 0 {
		t.Fatalf("RunUntilIdle advanced the clock to %v", s.Elapsed())
	}
}

func TestRunForAdvancesExactlyAndFiresDueTimers(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	woke := time.Duration(-1)
	s.Go("sleeper", func() {
		s.Sleep(5 * time.Second)
		woke = s.Elapsed()
	})
	steps := []struct {
		d       time.Duration
		woke    time.Duration
		elapsed time.Duration
	}{{0, -1, 0}, {3 * time.Second, -1, 3 * time.Second}, {3 * time.Second, 5 * time.Second, 6 * time.Second}}
	for i, st := range steps {
		var err error
		if st.d == 0 {
			err = s.RunUntilIdle()
		} else {
			err = s.RunFor(st.d)
		}
		if err != nil {
			t.Fatal(err)
		}
		if woke != st.woke || s.Elapsed() != st.elapsed {
			t.Fatalf("step %d: got woke %v elapsed %v, want %v and %v", i, woke, s.Elapsed(), st.woke, st.elapsed)
		}
	}
}

func TestRunJudgesWhatSegmentsLeaveParked(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	s.Go("client", func() { s.NewEvent("never").Wait() })
	if err := s.RunUntilIdle(); err != nil {
		t.Fatalf("RunUntilIdle: got %v, want nil (a parked goroutine is not judged)", err)
	}
	var dl *DeadlockError
	if err := s.Run(); !errors.As(err, &dl) {
		t.Fatalf("Run: got %v, want a deadlock", err)
	}
	if err := s.RunUntilIdle(); !errors.As(err, &dl) {
		t.Fatalf("after the end: got %v, want the same deadlock again", err)
	}
}

func TestRunAgainAfterNilResult(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	n := 0
	s.Go("first", func() { n++ })
	if err := s.Run(); err != nil {
		t.Fatal(err)
	}
	s.Go("second", func() { n++ })
	if err := s.Run(); err != nil || n != 2 {
		t.Fatalf("got %v and n=%d, want nil and 2", err, n)
	}
}

func TestRunFromInsideTheSimulationPanics(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	s.Go("g", func() { _ = s.RunUntilIdle() })
	var pe *PanicError
	if err := s.Run(); !errors.As(err, &pe) {
		t.Fatalf("got %v, want a panic", err)
	}
}

func TestGoroutineNamesTheBatonHolder(t *testing.T) {
	s := New(Options{Source: NewReplay(nil)})
	defer s.Close()
	var seen []string
	for _, name := range []string{"client/1", "worker/a"} {
		s.Go(name, func() {
			seen = append(seen, s.Goroutine())
			s.Yield()
			seen = append(seen, s.Goroutine())
		})
	}
	if got := s.Goroutine(); got != "" {
		t.Fatalf("outside a run: got %q, want empty", got)
	}
	if err := s.Run(); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(seen, ","); got != "client/1,client/1,worker/a,worker/a" {
		t.Fatalf("got %s", got)
	}
}

func TestTimelineIsDeterministicChromeTraceJSON(t *testing.T) {
	render := func() []byte {
		s := New(Options{Source: NewPCG(3)})
		defer s.Close()
		contention(s)
		if err := s.Run(); err != nil {
			t.Fatal(err)
		}
		return s.Timeline()
	}
	a, b := render(), render()
	if string(a) != string(b) {
		t.Fatal("two runs of one seed rendered different timelines")
	}
	var doc struct {
		TraceEvents []struct {
			Name, Ph string
			TID      int32
			Args     map[string]any
		}
	}
	if err := json.Unmarshal(a, &doc); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	threads, slices, clocks := map[string]bool{}, 0, 0
	for _, e := range doc.TraceEvents {
		switch e.Ph {
		case "M":
			threads[e.Args["name"].(string)] = true
		case "X":
			slices++
		case "i":
			clocks++
		}
	}
	if !threads["scheduler"] || !threads["client/0"] || !threads["consumer"] || slices == 0 || clocks == 0 {
		t.Fatalf("got threads %v, %d slices, %d clock events; want every goroutine, slices and clock jumps", threads, slices, clocks)
	}
}
