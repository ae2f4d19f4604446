package fakeclock

import (
	"testing"
	"time"
)

// BenchmarkAfterFuncStop is the sim's commonest timer pattern: arm a timeout,
// then cancel it before it fires, with a steady population of other pending
// timers so the heap has realistic depth.
func BenchmarkAfterFuncStop(b *testing.B) {
	c := New()
	f := func() {}
	for i := range 1024 {
		c.Schedule(time.Duration(i+1)*time.Millisecond, f)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		c.Schedule(time.Duration(i%2048)*time.Microsecond, f).Stop()
	}
}

// BenchmarkAdvance fires one timer per op out of 1024 pending ones; each
// callback re-arms its own timer with Reset, keeping the heap size constant.
func BenchmarkAdvance(b *testing.B) {
	const n = 1024
	c := New()
	for i := range n {
		var t *Timer
		t = c.Schedule(time.Duration(i+1)*time.Millisecond, func() { t.Reset(n * time.Millisecond) })
	}
	b.ReportAllocs()
	for b.Loop() {
		c.Advance(time.Millisecond)
	}
}
