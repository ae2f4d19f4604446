package run

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
)

// laneJob is one seed a lane runs, with its options.
type laneJob struct {
	seed uint64
	opts CheckOptions
}

// laneJobs are the seeds A, B, A', B' and A again of family f: A plain, B with a
// mutant of f (findings), the fault points and near misses on, then A
// again, B observable-only, and A with the mutant, so that every option a
// run can carry passes through the lane's reused structures between two
// runs of A.
func laneJobs(f plan.Family) []laneJob {
	mutant := ""
	for _, m := range Mutants() {
		if slices.Contains(m.Families, f.Name) {
			mutant = m.Name
			break
		}
	}
	a, b := uint64(11), uint64(12)
	return []laneJob{{a, CheckOptions{}}, {b, CheckOptions{Mutant: mutant, FaultPoints: true, NearMisses: true}},
		{a, CheckOptions{}}, {b, CheckOptions{ObservableOnly: true}}, {a, CheckOptions{Mutant: mutant}}}
}

// sameResult says how got (a lane's run) differs from want (a fresh one):
// "" when it does not, byte for byte in every field (the trace hash, the
// verdict, the coverage, the marks, the findings).
func sameResult(got, want Result) string {
	if fmt.Sprint(got.Err) != fmt.Sprint(want.Err) {
		return fmt.Sprintf("error %v, fresh %v", got.Err, want.Err)
	}
	got.Err, want.Err = nil, nil
	if got.TraceSHA != want.TraceSHA {
		return fmt.Sprintf("trace %s, fresh %s", got.TraceSHA, want.TraceSHA)
	}
	if !reflect.DeepEqual(got.Violations, want.Violations) {
		return fmt.Sprintf("violations %v, fresh %v", got.Violations, want.Violations)
	}
	if !reflect.DeepEqual(got.Coverage, want.Coverage) {
		return fmt.Sprintf("coverage %v, fresh %v", got.Coverage, want.Coverage)
	}
	if !reflect.DeepEqual(got, want) {
		return fmt.Sprintf("result %+v, fresh %+v", got, want)
	}
	return ""
}

// laneDiffs runs every family's laneJobs on one lane (all families one
// after another, so a family's seeds also follow another family's) and
// returns how each differs from the same seed run fresh, and how many of
// the runs had findings. With untilOne, it stops after the first family
// that differs: a leak's test needs one difference, not all of them.
func laneDiffs(l *Lane, untilOne bool) (diffs []string, failed int) {
	var firstA Result
	for _, f := range plan.Families() {
		for i, j := range laneJobs(f) {
			got, want := l.RunSeed(f, j.seed, sim.RandomWalk{}, j.opts), RunSeed(f, j.seed, sim.RandomWalk{}, j.opts)
			if want.Failed() {
				failed++
			}
			if d := sameResult(got, want); d != "" {
				diffs = append(diffs, fmt.Sprintf("%s seed %d (job %d, %+v): %s", f.Name, j.seed, i, j.opts, d))
			}
			switch i {
			case 0:
				firstA = got
			case 2: // A' == A
				if d := sameResult(got, firstA); d != "" {
					diffs = append(diffs, fmt.Sprintf("%s: A' differs from A: %s", f.Name, d))
				}
			}
		}
		if untilOne && len(diffs) > 0 {
			break
		}
	}
	return diffs, failed
}

// TestLaneSeedsAreFreshSeeds: a seed run on a lane's reused structures
// gives exactly the result it gives run fresh, whatever ran on the lane
// before it (another seed, another family, a mutant, other options), and
// A, B, A' gives A' == A, for every family.
func TestLaneSeedsAreFreshSeeds(t *testing.T) {
	diffs, failed := laneDiffs(&Lane{}, false)
	for _, d := range diffs {
		t.Error(d)
	}
	if failed == 0 {
		t.Error("no run had findings: the lane's violations were never compared")
	}
}

// TestLaneLeakIsCaught: a lane that reuses one structure without emptying
// it fails TestLaneSeedsAreFreshSeeds' comparison. The requeue, killPodNow
// and worker-leak checks are left out: their state is written before it
// is read and no seed here finds what they look for, so a leak of theirs
// changes no result the comparison sees; their own tests (TestRequeueDelay,
// TestKillNowTimeout, TestL10WorkerLeaks) reuse one check across their
// cases and fail when a Reset leaves a field.
func TestLaneLeakIsCaught(t *testing.T) {
	for _, leak := range []string{"conform", "coverage", "marker", "epoch", "kubelet", "freshness", "streams"} {
		if diffs, _ := laneDiffs(&Lane{leak: leak}, true); len(diffs) == 0 {
			t.Errorf("a lane that does not empty its %s passes the comparison", leak)
		} else {
			t.Logf("%s leaked: %d differences in the first family that differs, first %.300s", leak, len(diffs), diffs[0])
		}
	}
}
