package realkubelet

import (
	"flag"
	"testing"
	"testing/synctest"

	"github.com/podsim/podsim/plan"
)

var managerCoverage = flag.Int("coverage.managers", 0, "TestManagerCoverage: seeds per family (0 = skip)")

// TestManagerCoverage reports what the real node shutdown and eviction
// managers did over a sweep of the families that use them (plain mode):
// shutdowns begun and ended, their kills, creates the real Admit
// rejected; eviction turns, turns that evicted, evictions of a pod other
// than the one the plan ranked first, Evict actions that came during a
// turn. It checks nothing beyond the runs' own checks; it measures.
//
//	go test -run TestManagerCoverage -v . -args -coverage.managers 200
func TestManagerCoverage(t *testing.T) {
	if *managerCoverage == 0 {
		t.Skip("-coverage.managers N")
	}
	for _, name := range []string{"node-shutdown", "eviction-wait", "swarm"} {
		var f plan.Family
		for _, g := range plan.Families() {
			if g.Name == name {
				f = g
			}
		}
		var c struct{ runs, shutdowns, done, kills, rejected, turns, evicting, other, busy int }
		for seed := uint64(1); seed <= uint64(*managerCoverage); seed++ {
			synctest.Test(t, func(t *testing.T) {
				st := plan.SeedStreams(seed)
				d := newDriver(RunOptions{})
				d.Generate(f.Generate(st.Plan), st.Schedule, st.Faults, false)
				d.planSteps = len(d.Moves)
				d.Finish(name, seed)
				a := d.actors
				c.runs++
				if a.ShutdownBegun() {
					c.shutdowns++
				}
				if a.ShutdownDone {
					c.done++
				}
				for r := range a.Noted {
					if r.Actor == "shutdown" {
						c.kills++
					}
				}
				c.rejected += len(a.Rejected)
				c.busy += a.EvictBusy
				if a.Evict != nil {
					for i, ev := range a.Evict.Evicted() {
						c.turns++
						if len(ev) > 0 {
							c.evicting++
							if ev[0] != a.EvictRanked[i] {
								c.other++
							}
						}
					}
				}
			})
		}
		t.Logf("%-14s %d runs: shutdowns %d (ended %d), shutdown kills %d, creates rejected %d; eviction turns %d "+
			"(evicting %d, another pod than the plan's %d), Evicts during a turn %d",
			name, c.runs, c.shutdowns, c.done, c.kills, c.rejected, c.turns, c.evicting, c.other, c.busy)
	}
}
