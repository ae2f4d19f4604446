package check

import (
	"testing"

	"github.com/podsim/podsim/model/ops"
)

// TestWholeWalkKeepsItsIndexes: one kit walks histories of many lengths
// whole, long and short in turn, as a sweep's pooled kit does. The
// indexes it keeps (replayKit.all) must be 0, 1, 2 … after each walk, and
// each verdict that of a new kit. It fails when the kept indexes are
// appended to without being the identity (a walk of a longer history
// after a shorter one then steps the wrong operations), and when a walk
// reads past what it kept.
func TestWholeWalkKeepsItsIndexes(t *testing.T) {
	var kit replayKit
	kit.replayer.detours = 3
	walks, passed := 0, 0
	for seed := range uint64(16) {
		n := 20 + int(seed*37%100)
		list := newWitnessGen(seed+500, 2+int(seed%5)).run(n)
		forEachCorruption(list, 1, func(i, variant int, mutant []ops.Op) {
			if walks++; walks%7 != 0 {
				return
			}
			var fresh replayKit
			fresh.replayer.detours = 3
			want := fresh.replayer.walkWhole(mutant, &fresh.all)
			got := kit.replayer.walkWhole(mutant, &kit.all)
			if got != want {
				t.Fatalf("seed %d corruption %d/%d (%d operations): a kept kit walks whole %v, a new one %v",
					seed, i, variant, len(mutant), got, want)
			}
			for j, k := range kit.all {
				if int(k) != j {
					t.Fatalf("seed %d: after a walk of %d operations the kept index %d is %d", seed, len(mutant), j, k)
				}
			}
			if len(kit.all) < len(mutant) {
				t.Fatalf("seed %d: %d indexes kept for a walk of %d operations", seed, len(kit.all), len(mutant))
			}
			if got {
				passed++
			}
		})
	}
	if passed == 0 || passed == walks/7 {
		t.Fatalf("%d walks, %d passed whole: want some of each", walks/7, passed)
	}
}
