package fakeclock

import (
	"slices"
	"sync"
	"testing"
	"time"
)

// recv is a non-blocking receive, rendered as the offset from Epoch or "empty".
func recv(ch <-chan time.Time) string {
	select {
	case v := <-ch:
		return v.Sub(Epoch()).String()
	default:
		return "empty"
	}
}

func TestChannelTimers(t *testing.T) {
	tests := []struct {
		name string
		run  func(c *Clock) []any // observations, compared with want
		want []any
	}{
		{"NewTimer delivers its deadline", func(c *Clock) []any {
			tm := c.NewTimer(2 * time.Second)
			c.Advance(time.Second)
			a := recv(tm.C())
			c.Advance(5 * time.Second)
			return []any{a, recv(tm.C()), recv(tm.C())}
		}, []any{"empty", "2s", "empty"}},
		{"After", func(c *Clock) []any {
			ch := c.After(time.Second)
			c.Advance(time.Second)
			return []any{recv(ch)}
		}, []any{"1s"}},
		{"Stop of fired unreceived timer drains and reports true", func(c *Clock) []any {
			tm := c.NewTimer(time.Second)
			c.Advance(2 * time.Second)
			return []any{tm.Stop(), recv(tm.C()), tm.Stop()}
		}, []any{true, "empty", false}},
		{"Stop of received timer reports false", func(c *Clock) []any {
			tm := c.NewTimer(time.Second)
			c.Advance(2 * time.Second)
			return []any{recv(tm.C()), tm.Stop()}
		}, []any{"1s", false}},
		{"Reset of fired unreceived timer drains and re-arms", func(c *Clock) []any {
			tm := c.NewTimer(time.Second)
			c.Advance(2 * time.Second)
			r := tm.Reset(time.Second)
			a := recv(tm.C())
			c.Advance(time.Second)
			return []any{r, a, recv(tm.C())}
		}, []any{true, "empty", "3s"}},
		{"Ticker ticks each period and drops when full", func(c *Clock) []any {
			k := c.NewTicker(time.Second)
			c.Advance(3500 * time.Millisecond)
			a, b := recv(k.C()), recv(k.C())
			c.Advance(time.Second)
			d := recv(k.C())
			k.Stop()
			c.Advance(5 * time.Second)
			return []any{a, b, d, recv(k.C())}
		}, []any{"1s", "empty", "4s", "empty"}},
		{"Ticker.Stop discards an undelivered tick", func(c *Clock) []any {
			k := c.NewTicker(time.Second)
			c.Advance(time.Second)
			k.Stop()
			return []any{recv(k.C())}
		}, []any{"empty"}},
		{"Ticker.Reset changes the period", func(c *Clock) []any {
			k := c.NewTicker(time.Second).(*Ticker)
			c.Advance(time.Second)
			k.Reset(3 * time.Second)
			a := recv(k.C())
			c.Advance(3 * time.Second)
			b := recv(k.C())
			c.Advance(3 * time.Second)
			return []any{a, b, recv(k.C())}
		}, []any{"empty", "4s", "7s"}},
		{"Tick", func(c *Clock) []any {
			ch := c.Tick(time.Second)
			c.Advance(time.Second)
			return []any{recv(ch), c.Tick(0) == nil, c.Tick(-time.Second) == nil}
		}, []any{"1s", true, true}},
		{"Sleep advances and fires", func(c *Clock) []any {
			ch := c.After(time.Second)
			c.Sleep(-time.Second) // no-op, must not panic
			a := recv(ch)
			c.Sleep(time.Second)
			return []any{a, recv(ch), c.Since(Epoch())}
		}, []any{"empty", "1s", time.Second}},
		{"AfterFunc timer has no channel", func(c *Clock) []any {
			return []any{c.AfterFunc(time.Second, func() {}).C() == nil}
		}, []any{true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.run(New()); !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// TestCallbacksNotUnderLock: a callback that uses every clock and timer
// method would self-deadlock if callbacks ran under the clock's mutex.
func TestCallbacksNotUnderLock(t *testing.T) {
	c := New()
	done := make(chan []bool, 1)
	go func() {
		var rets []bool
		other := c.Schedule(time.Hour, func() {})
		c.AfterFunc(time.Second, func() {
			_ = c.Now()
			_ = c.Since(Epoch())
			_, _ = c.Next()
			inner := c.AfterFunc(0, func() {})
			rets = append(rets, inner.Stop(), other.Reset(time.Second), other.Stop())
			ch := c.After(0)
			c.Advance(0) // re-entrant driving is allowed too
			<-ch
		})
		c.Advance(2 * time.Second)
		done <- rets
	}()
	select {
	case got := <-done:
		if want := []bool{true, true, true}; !slices.Equal(got, want) {
			t.Errorf("got %v, want %v", got, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("got deadlock: callback blocked on the clock, want callbacks to run unlocked")
	}
}

// TestConcurrentUse exercises the mutex under -race: goroutines arm and stop
// timers while one goroutine drives time.
func TestConcurrentUse(t *testing.T) {
	c := New()
	var wg sync.WaitGroup
	var mu sync.Mutex
	fired := 0
	for g := range 4 {
		wg.Go(func() {
			for i := range 200 {
				tm := c.AfterFunc(time.Duration(i%7+g)*time.Millisecond, func() {
					mu.Lock()
					fired++
					mu.Unlock()
				})
				if i%3 == 0 {
					tm.Stop()
				}
				_ = c.Now()
			}
		})
	}
	stop := make(chan struct{})
	driverDone := make(chan struct{})
	go func() {
		defer close(driverDone)
		for {
			select {
			case <-stop:
				return
			default:
				c.Advance(time.Millisecond)
			}
		}
	}()
	wg.Wait()
	close(stop)
	<-driverDone
	c.Advance(time.Hour)
	if _, ok := c.Next(); ok {
		t.Errorf("got a pending timer after advancing past all deadlines, want none")
	}
	mu.Lock()
	defer mu.Unlock()
	// 133 of each goroutine's 200 timers are never stopped; the others may
	// fire before their Stop.
	if fired < 4*133 || fired > 4*200 {
		t.Errorf("got %d fired, want between %d and %d", fired, 4*133, 4*200)
	}
}
