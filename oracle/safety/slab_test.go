package safety

import "testing"

// TestCallsAreTheirOwn: the callbacks' records (newCall, a slab of
// callSlabSize at a time) are each new, zero and left alone by the later
// ones, in one run and after a Reset (a lane's next seed).
func TestCallsAreTheirOwn(t *testing.T) {
	o := newSafetyOracle()
	var calls []*safetyCall
	for i := range 5 * callSlabSize {
		if i == 2*callSlabSize+3 {
			o.Reset()
		}
		c := o.newCall()
		if *c != (safetyCall{}) {
			t.Fatalf("call %d handed out non-zero: %+v", i, *c)
		}
		c.seq, c.version = int64(i), i
		calls = append(calls, c)
		for j, d := range calls {
			if d.seq != int64(j) || d.version != j {
				t.Fatalf("call %d changed by call %d: %+v", j, i, *d)
			}
		}
	}
}
