package run

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
	"github.com/podsim/podsim/world/fakeruntime"
)

// faultPointSeeds is how many seeds per family the fault-point tests run.
const faultPointSeeds = 40

// TestFaultPointsKeepCorrectCodeCorrect: with the fault points armed, every
// family's seeds pass on the correct code, and every point fires in some
// run (its event is in the trace), so the check is not vacuous.
func TestFaultPointsKeepCorrectCodeCorrect(t *testing.T) {
	if testing.Short() {
		t.Skip("-short (make race): one armed run at a time (gate's TestGateFaultPoints makes armed runs in parallel " +
			"under -race); make test runs it")
	}
	fired := map[string]int{}
	on := 0
	for _, f := range plan.Families() {
		for seed := uint64(0); seed < faultPointSeeds; seed++ {
			rp := ReplaySeed(f, seed, sim.RandomWalk{}, CheckOptions{FaultPoints: true, ObservableOnly: true})
			r, trace := rp.Result, rp.Trace
			if r.Failed() {
				t.Errorf("%s seed %d with fault points %v: %v", f.Name, seed, r.FaultPoints, r)
			}
			if len(r.FaultPoints) > 0 {
				on++
			}
			for _, p := range fakeruntime.FaultPoints() {
				if strings.Contains(trace, "faultpoint/"+p.String()+"/") {
					fired[p.String()]++
				}
			}
		}
	}
	t.Logf("runs with a point on: %d; runs where each fired: %v", on, fired)
	for _, p := range fakeruntime.FaultPoints() {
		if fired[p.String()] == 0 {
			t.Errorf("fault point %s fired in no run", p)
		}
	}
}

// onlyPoints is a fault stream whose first draws (the fault plan, one per
// applicable point in FaultPoint order) switch on exactly the points in
// on, out of applicable, and whose later draws are all 0 (no flat-rate
// fault).
func onlyPoints(applicable, on []fakeruntime.FaultPoint) []int {
	var c []int
	for _, p := range applicable {
		v := 0
		if slices.Contains(on, p) {
			v = plan.FaultPointOneIn - 1
		}
		c = append(c, v)
	}
	return c
}

// TestSlowSyncUnderKillLandsTheKillDuringSyncPod: a pod created at 0 and
// killed at 500 ms. Without fault choices its SyncPod returns at once and
// the kill finds no sync in flight; with slow-sync-under-kill on (and
// nothing else) the SyncPod stays in flight until just after the kill, the
// kill cancels it (the "kill-during-syncpod" and "cancel-during-syncpod"
// situations), the trace shows the point firing, and the run passes.
func TestSlowSyncUnderKillLandsTheKillDuringSyncPod(t *testing.T) {
	pl := plan.Plan{Family: "fp", Clients: 1, Faults: plan.Faults{SlowRate: 100, MaxDelay: 2 * time.Second},
		Actions: []plan.Action{{Kind: plan.Create, UID: "a", SpecGrace: 30, Grace: -1},
			{At: 500 * time.Millisecond, Kind: plan.Remove, UID: "a", Grace: -1}}}
	slow := []fakeruntime.FaultPoint{fakeruntime.SlowSyncUnderKill, fakeruntime.SlowTerminatingUnderKill, fakeruntime.SlowTerminatedUnderKill,
		fakeruntime.SlowAfterError}
	for _, on := range []bool{false, true} {
		faults := onlyPoints(slow, nil)
		if on {
			faults = onlyPoints(slow, []fakeruntime.FaultPoint{fakeruntime.SlowSyncUnderKill})
		}
		rp := ReplayCase(Case{Plan: pl, Faults: faults}, sim.RandomWalk{}, CheckOptions{FaultPoints: true})
		fired := strings.Contains(rp.Trace, "faultpoint/slow-sync-under-kill/SyncPod/a")
		during := slices.Contains(rp.Marks, "kill-during-syncpod") && slices.Contains(rp.Marks, "cancel-during-syncpod")
		if rp.Failed() || fired != on || during != on || on != slices.Equal(rp.FaultPoints, []string{"slow-sync-under-kill"}) {
			t.Fatalf("point on=%v: failed=%v fired=%v kill during SyncPod=%v points %v marks %v", on, rp.Failed(), fired,
				during, rp.FaultPoints, rp.Marks)
		}
	}
}

// TestErrorAfterShortGrace: a pod deleted with grace 30 s at 1 s, then
// again with grace 2 s at 1.5 s. With slow-terminating-under-kill on, the
// first SyncTerminatingPod is still in flight when the shorter kill lands
// and is cancelled; with error-after-short-grace on too, the retry with the
// shorter grace fails once (shown in the trace) and the next retry ends
// it: the run passes either way.
func TestErrorAfterShortGrace(t *testing.T) {
	pl := plan.Plan{Family: "fp", Clients: 1, Faults: plan.Faults{SlowRate: 100, MaxDelay: 2 * time.Second, ErrorRate: 10},
		Actions: []plan.Action{{Kind: plan.Create, UID: "a", SpecGrace: 30, Grace: -1},
			{At: time.Second, Kind: plan.Delete, UID: "a", Grace: 30},
			{At: 1500 * time.Millisecond, Kind: plan.Delete, UID: "a", Grace: 2}}}
	points := []fakeruntime.FaultPoint{fakeruntime.SlowSyncUnderKill, fakeruntime.SlowTerminatingUnderKill, fakeruntime.SlowTerminatedUnderKill,
		fakeruntime.ErrorAfterShortGrace, fakeruntime.SlowAfterError}
	for _, withError := range []bool{false, true} {
		on := []fakeruntime.FaultPoint{fakeruntime.SlowTerminatingUnderKill}
		if withError {
			on = append(on, fakeruntime.ErrorAfterShortGrace)
		}
		rp := ReplayCase(Case{Plan: pl, Faults: onlyPoints(points, on)}, sim.RandomWalk{}, CheckOptions{FaultPoints: true})
		slowFired := strings.Contains(rp.Trace, "faultpoint/slow-terminating-under-kill/SyncTerminatingPod/a")
		errFired := strings.Contains(rp.Trace, "faultpoint/error-after-short-grace/SyncTerminatingPod/a")
		if rp.Failed() || !slowFired || errFired != withError {
			t.Fatalf("error point on=%v: failed=%v (%v) slow fired=%v error fired=%v", withError, rp.Failed(), rp.Result,
				slowFired, errFired)
		}
	}
}

// TestFaultPointsOffByZeroChoices: the fault plan is drawn from the fault
// stream, so a recorded run replays with the same points, and choice 0 —
// what shrinking lowers a choice to — switches a point off.
func TestFaultPointsOffByZeroChoices(t *testing.T) {
	f, _ := plan.FamilyNamed("kill-during-create")
	opts := CheckOptions{FaultPoints: true}
	for seed := uint64(0); seed < 40; seed++ {
		c, r := RecordSeed(f, seed, sim.RandomWalk{}, opts)
		if len(r.FaultPoints) == 0 {
			continue
		}
		again := ReplayCase(c, sim.RandomWalk{}, opts)
		if again.TraceSHA != r.TraceSHA || !slices.Equal(again.FaultPoints, r.FaultPoints) {
			t.Fatalf("seed %d: the recorded run replays to %v %s, want %v %s", seed, again.FaultPoints, again.TraceSHA,
				r.FaultPoints, r.TraceSHA)
		}
		c.Faults = nil
		if off := ReplayCase(c, sim.RandomWalk{}, opts); len(off.FaultPoints) != 0 {
			t.Fatalf("seed %d: zero fault choices still switch on %v", seed, off.FaultPoints)
		}
		return
	}
	t.Fatal("no seed of 40 switched a point on")
}
