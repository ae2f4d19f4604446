package fakeclock

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// recorder collects "name@offset" for every callback, offset from Epoch.
type recorder struct {
	c   *Clock
	got []string
}

func newRecorder() *recorder { return &recorder{c: New()} }

func (r *recorder) fn(name string) func() {
	return func() { r.got = append(r.got, fmt.Sprintf("%s@%s", name, r.c.Since(Epoch()))) }
}

func TestNewStartsAtEpoch(t *testing.T) {
	c := New()
	if got, want := c.Now(), time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC); !got.Equal(want) {
		t.Errorf("Now() = %v, want %v", got, want)
	}
	if got := c.Since(Epoch().Add(-time.Second)); got != time.Second {
		t.Errorf("Since(epoch-1s) = %v, want 1s", got)
	}
	if _, ok := c.Next(); ok {
		t.Errorf("Next() ok = true, want false on a new clock")
	}
}

// TestFiringOrder covers the (deadline, sequence) contract, including the
// same-deadline cases that the conformance table cannot compare with real
// time.
func TestFiringOrder(t *testing.T) {
	type arm struct {
		name string
		d    time.Duration
	}
	tests := []struct {
		name    string
		arms    []arm
		resets  []arm // applied in order after all arms
		advance time.Duration
		want    []string
	}{
		{"same deadline fires in creation order",
			[]arm{{"A", time.Second}, {"B", time.Second}, {"C", time.Second}}, nil,
			time.Second, []string{"A@1s", "B@1s", "C@1s"}},
		{"earlier deadlines first",
			[]arm{{"A", 3 * time.Second}, {"B", time.Second}, {"C", 2 * time.Second}}, nil,
			5 * time.Second, []string{"B@1s", "C@2s", "A@3s"}},
		{"deadline then creation order",
			[]arm{{"A", 2 * time.Second}, {"B", time.Second}, {"C", 2 * time.Second}, {"D", time.Second}}, nil,
			2 * time.Second, []string{"B@1s", "D@1s", "A@2s", "C@2s"}},
		{"zero and negative durations are due now, in creation order",
			[]arm{{"A", 0}, {"B", -time.Second}, {"C", 0}}, nil,
			0, []string{"A@0s", "B@0s", "C@0s"}},
		{"reset takes a new sequence number",
			[]arm{{"A", time.Second}, {"B", time.Second}}, []arm{{"A", time.Second}},
			time.Second, []string{"B@1s", "A@1s"}},
		{"reset moves a timer earlier",
			[]arm{{"A", 3 * time.Second}, {"B", 2 * time.Second}}, []arm{{"A", time.Second}},
			5 * time.Second, []string{"A@1s", "B@2s"}},
		{"timers past the target stay pending",
			[]arm{{"A", time.Second}, {"B", 5 * time.Second}}, nil,
			2 * time.Second, []string{"A@1s"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRecorder()
			timers := map[string]*Timer{}
			for _, a := range tt.arms {
				timers[a.name] = r.c.Schedule(a.d, r.fn(a.name))
			}
			for _, a := range tt.resets {
				timers[a.name].Reset(a.d)
			}
			r.c.Advance(tt.advance)
			if !slices.Equal(r.got, tt.want) {
				t.Errorf("got %q, want %q", r.got, tt.want)
			}
			if got, want := r.c.Since(Epoch()), tt.advance; got != want {
				t.Errorf("got Now = epoch+%v after Advance, want epoch+%v", got, want)
			}
		})
	}
}

func TestNowDuringCallbackIsDeadline(t *testing.T) {
	c := New()
	var got []time.Duration
	for _, d := range []time.Duration{3 * time.Second, time.Second, 2 * time.Second} {
		c.AfterFunc(d, func() { got = append(got, c.Since(Epoch())) })
	}
	target := Epoch().Add(10 * time.Second)
	c.AdvanceTo(target)
	if want := []time.Duration{time.Second, 2 * time.Second, 3 * time.Second}; !slices.Equal(got, want) {
		t.Errorf("got Now during callbacks %v, want %v", got, want)
	}
	if got := c.Now(); !got.Equal(target) {
		t.Errorf("got Now %v after AdvanceTo, want %v", got, target)
	}
}

// TestCallbacksArmTimers: timers armed by a callback with a deadline within
// the target fire in the same AdvanceTo, in their place in the order.
func TestCallbacksArmTimers(t *testing.T) {
	r := newRecorder()
	c := r.c
	c.AfterFunc(time.Second, func() {
		r.fn("A")()
		c.AfterFunc(0, r.fn("A.now"))           // due at 1s, after B (armed earlier)
		c.AfterFunc(time.Second, r.fn("A.+1s")) // due at 2s, after C
		c.AfterFunc(time.Hour, r.fn("A.+1h"))   // past the target
	})
	c.AfterFunc(time.Second, r.fn("B"))
	c.AfterFunc(2*time.Second, r.fn("C"))
	c.Advance(5 * time.Second)
	want := []string{"A@1s", "B@1s", "A.now@1s", "C@2s", "A.+1s@2s"}
	if !slices.Equal(r.got, want) {
		t.Errorf("got %q, want %q", r.got, want)
	}
	if next, ok := c.Next(); !ok || !next.Equal(Epoch().Add(time.Hour+time.Second)) {
		t.Errorf("got Next() = %v, %v, want epoch+1h1s, true", next, ok)
	}
}

// TestStopResetStates checks the time.Timer return contracts in each state.
func TestStopResetStates(t *testing.T) {
	tests := []struct {
		state     string // active, fired, stopped
		op        string // stop, reset
		wantRet   bool
		wantFires []string // after the op, advancing 10s more
	}{
		{"active", "stop", true, nil},
		{"fired", "stop", false, nil},
		{"stopped", "stop", false, nil},
		{"active", "reset", true, []string{"A@2s"}},
		{"fired", "reset", false, []string{"A@3s"}}, // re-armed from 1s
		{"stopped", "reset", false, []string{"A@2s"}},
	}
	for _, tt := range tests {
		t.Run(tt.state+"/"+tt.op, func(t *testing.T) {
			r := newRecorder()
			tm := r.c.Schedule(time.Second, r.fn("A"))
			switch tt.state {
			case "fired":
				r.c.Advance(time.Second)
			case "stopped":
				tm.Stop()
			}
			r.got = nil
			var got bool
			if tt.op == "stop" {
				got = tm.Stop()
			} else {
				got = tm.Reset(2 * time.Second)
			}
			if got != tt.wantRet {
				t.Errorf("got %s = %v, want %v", tt.op, got, tt.wantRet)
			}
			r.c.Advance(10 * time.Second)
			if !slices.Equal(r.got, tt.wantFires) {
				t.Errorf("got fires %q, want %q", r.got, tt.wantFires)
			}
		})
	}
}

func TestStopInCallbackPreventsSameDeadlineTimer(t *testing.T) {
	r := newRecorder()
	var b *Timer
	var stopped bool
	r.c.AfterFunc(time.Second, func() { r.fn("A")(); stopped = b.Stop() })
	b = r.c.Schedule(time.Second, r.fn("B"))
	r.c.AfterFunc(time.Second, r.fn("C"))
	r.c.Advance(time.Second)
	if want := []string{"A@1s", "C@1s"}; !slices.Equal(r.got, want) {
		t.Errorf("got %q, want %q", r.got, want)
	}
	if !stopped {
		t.Errorf("got Stop() = false inside callback, want true")
	}
}

func TestResetOwnTimerInCallback(t *testing.T) {
	r := newRecorder()
	var a *Timer
	var rets []bool
	a = r.c.Schedule(time.Second, func() {
		r.fn("A")()
		if len(r.got) < 3 {
			rets = append(rets, a.Reset(time.Second))
		}
	})
	r.c.Advance(10 * time.Second)
	if want := []string{"A@1s", "A@2s", "A@3s"}; !slices.Equal(r.got, want) {
		t.Errorf("got %q, want %q", r.got, want)
	}
	if want := []bool{false, false}; !slices.Equal(rets, want) {
		t.Errorf("got Reset results %v, want %v", rets, want)
	}
}

func TestNext(t *testing.T) {
	c := New()
	if _, ok := c.Next(); ok {
		t.Fatalf("got Next() ok with no timers, want false")
	}
	var ts []*Timer
	for _, d := range []time.Duration{5, 2, 7, 2, 9} {
		ts = append(ts, c.Schedule(d*time.Second, func() {}))
	}
	steps := []struct {
		stop   int // index into ts to stop before checking; -1: none
		want   time.Duration
		wantOK bool
	}{
		{-1, 2 * time.Second, true},
		{1, 2 * time.Second, true}, // the other 2s timer remains
		{3, 5 * time.Second, true},
		{0, 7 * time.Second, true},
		{4, 7 * time.Second, true},
		{2, 0, false},
	}
	for i, s := range steps {
		if s.stop >= 0 {
			ts[s.stop].Stop()
		}
		got, ok := c.Next()
		if ok != s.wantOK || (ok && !got.Equal(Epoch().Add(s.want))) {
			t.Errorf("step %d: got Next() = %v, %v, want epoch+%v, %v", i, got, ok, s.want, s.wantOK)
		}
	}
}

func TestPanics(t *testing.T) {
	tests := []struct {
		name string
		f    func(c *Clock)
		want string
	}{
		{"AdvanceTo into the past", func(c *Clock) { c.AdvanceTo(Epoch().Add(-time.Second)) },
			"fakeclock: AdvanceTo: 1999-12-31T23:59:59Z is before now 2000-01-01T00:00:00Z"},
		{"AdvanceTo before a later now", func(c *Clock) { c.Advance(time.Hour); c.AdvanceTo(Epoch()) },
			"fakeclock: AdvanceTo: 2000-01-01T00:00:00Z is before now 2000-01-01T01:00:00Z"},
		{"AdvanceTo out of range", func(c *Clock) { c.AdvanceTo(Epoch().AddDate(300, 0, 0)) },
			"fakeclock: AdvanceTo: 2300-01-01T00:00:00Z is out of range"},
		{"negative Advance", func(c *Clock) { c.Advance(-time.Second) },
			"fakeclock: Advance: negative duration -1s"},
		{"nil AfterFunc", func(c *Clock) { c.AfterFunc(time.Second, nil) },
			"fakeclock: AfterFunc: nil func"},
		{"zero NewTicker", func(c *Clock) { c.NewTicker(0) },
			"fakeclock: NewTicker: non-positive interval 0s"},
		{"negative Ticker.Reset", func(c *Clock) { c.NewTicker(time.Second).(*Ticker).Reset(-1) },
			"fakeclock: Ticker.Reset: non-positive interval -1ns"},
		{"nil ScheduleFirer", func(c *Clock) { c.ScheduleFirer(new(Timer), time.Second, nil) },
			"fakeclock: ScheduleFirer: nil Firer"},
		{"ScheduleFirer on a made timer", func(c *Clock) { c.ScheduleFirer(c.Schedule(time.Second, func() {}), time.Second, firer{}) },
			"fakeclock: ScheduleFirer: the timer was made already"},
		{"zero Timer", func(*Clock) { new(Timer).Stop() },
			"fakeclock: Timer.Stop: timer not created by a Clock"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New()
			got := func() (msg string) {
				defer func() { msg = fmt.Sprint(recover()) }()
				tt.f(c)
				return "no panic"
			}()
			if !strings.HasPrefix(got, tt.want) {
				t.Errorf("got panic %q, want prefix %q", got, tt.want)
			}
			// The clock must still be usable after a rejected call.
			c.Advance(time.Second)
		})
	}
}

// TestSaturation: a duration that would overflow past the latest
// representable instant means "never", not a wrapped deadline in the past.
func TestSaturation(t *testing.T) {
	c := New()
	c.Advance(time.Second)
	fired := false
	c.AfterFunc(time.Duration(math.MaxInt64), func() { fired = true })
	want := Epoch().Add(time.Duration(math.MaxInt64))
	if got, ok := c.Next(); !ok || !got.Equal(want) {
		t.Errorf("got Next() = %v, %v, want %v, true", got, ok, want)
	}
	c.Advance(time.Hour)
	if fired {
		t.Errorf("got fired = true, want the saturated timer still pending")
	}
}

// TestHeapAgainstModel drives random arm/stop/reset/advance operations and
// compares the firing sequence with a sorted-slice model of the contract.
// The seed is fixed: the test is deterministic, like everything in podsim.
func TestHeapAgainstModel(t *testing.T) {
	type entry struct {
		id        int
		when, seq int64
		armed     bool
	}
	rng := rand.New(rand.NewPCG(1, 2))
	c := New()
	var model []*entry
	var timers []*Timer
	var got, want []int
	var seq, now int64
	for range 5000 {
		switch op := rng.IntN(10); {
		case op < 4 || len(timers) == 0: // arm
			e := &entry{id: len(model), when: now + rng.Int64N(20), armed: true}
			seq++
			e.seq = seq
			model = append(model, e)
			timers = append(timers, c.Schedule(time.Duration(e.when-now), func() { got = append(got, e.id) }))
		case op < 6: // stop
			i := rng.IntN(len(timers))
			if g, w := timers[i].Stop(), model[i].armed; g != w {
				t.Fatalf("timer %d: got Stop() = %v, want %v", i, g, w)
			}
			model[i].armed = false
		case op < 8: // reset
			i := rng.IntN(len(timers))
			d := rng.Int64N(20)
			if g, w := timers[i].Reset(time.Duration(d)), model[i].armed; g != w {
				t.Fatalf("timer %d: got Reset() = %v, want %v", i, g, w)
			}
			seq++
			model[i].when, model[i].seq, model[i].armed = now+d, seq, true
		default: // advance
			now += rng.Int64N(10)
			var due []*entry
			for _, e := range model {
				if e.armed && e.when <= now {
					due = append(due, e)
				}
			}
			sort.Slice(due, func(a, b int) bool {
				return due[a].when < due[b].when || (due[a].when == due[b].when && due[a].seq < due[b].seq)
			})
			for _, e := range due {
				e.armed = false
				want = append(want, e.id)
			}
			c.AdvanceTo(Epoch().Add(time.Duration(now)))
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got firing order %v, want %v", got, want)
	}
	if len(want) < 1000 {
		t.Errorf("got %d firings, want a run that fires at least 1000", len(want))
	}
}

// TestOffsetsAreTimes: NextOffset and AdvanceToOffset are Next and
// AdvanceTo in offsets from Epoch. Two clocks with the same timers, one
// driven by each pair, see the same deadlines, fire the same timers in
// the same order at the same times, and read the same Now; an offset
// before now panics as a time before now does.
func TestOffsetsAreTimes(t *testing.T) {
	var byTime, byOffset []string
	a, b := New(), New()
	arm := func(c *Clock, log *[]string) {
		for i, d := range []time.Duration{3 * time.Second, time.Second, 3 * time.Second, 0, 90 * time.Minute} {
			c.AfterFunc(d, func() { *log = append(*log, fmt.Sprintf("%d@%v", i, c.Now().Sub(Epoch()))) })
		}
	}
	arm(a, &byTime)
	arm(b, &byOffset)
	for step := 0; ; step++ {
		at, ok := a.Next()
		off, ok2 := b.NextOffset()
		if ok != ok2 || (ok && at.Sub(Epoch()) != off) {
			t.Fatalf("step %d: Next %v %v, NextOffset %v %v", step, at, ok, off, ok2)
		}
		if !ok {
			break
		}
		a.AdvanceTo(at)
		b.AdvanceToOffset(off)
		if !a.Now().Equal(b.Now()) {
			t.Fatalf("step %d: Now %v and %v", step, a.Now(), b.Now())
		}
	}
	a.AdvanceTo(Epoch().Add(2 * time.Hour))
	b.AdvanceToOffset(2 * time.Hour)
	if !a.Now().Equal(b.Now()) || !slices.Equal(byTime, byOffset) || len(byTime) != 5 {
		t.Fatalf("fired %v and %v, now %v and %v", byTime, byOffset, a.Now(), b.Now())
	}
	defer func() {
		if recover() == nil {
			t.Error("AdvanceToOffset into the past did not panic")
		}
	}()
	b.AdvanceToOffset(time.Hour)
}
