package safety

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/podsim/podsim/history"
)

// TestMirrorReaderIsMirrorTerminating: the walk through a probe's mirror
// answers says what Probe.MirrorTerminating says, for random probes and
// random ascending full names (those the probe holds and others).
func TestMirrorReaderIsMirrorTerminating(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 9))
	name := func() string { return "p" + strconv.Itoa(r.IntN(12)) + "_default" }
	for i := 0; i < 500; i++ {
		mirror := map[string]bool{}
		for range r.IntN(6) {
			mirror[name()] = r.IntN(2) == 0
		}
		p := history.NewProbe(r.IntN(2) == 0, nil, mirror)
		var asked []string
		for range r.IntN(8) {
			asked = append(asked, name())
		}
		slices.Sort(asked)
		asked = slices.Compact(asked)
		walk := newMirrorReader(p)
		for _, f := range asked {
			if got, want := walk.terminating(f), p.MirrorTerminating(f); got != want {
				t.Fatalf("probe %+v, asked %v: %s walked to %v, want %v", p.Mirror, asked, f, got, want)
			}
		}
	}
}
