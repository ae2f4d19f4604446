package check

import (
	"slices"
	"testing"

	"github.com/anishathalye/porcupine"
	"github.com/podsim/podsim/model"
	"github.com/podsim/podsim/model/ops"
)

// TestInPlaceAgreesWithStep: Replay's witness mode steps the states it
// alone holds in place (stepOn, writing into arrays they own, reclaiming
// them after a fork), while Step copies. On generated histories with
// markers, legal and corrupted (one observation, a lost or a spurious
// marker), both give the same set of states after every operation, and
// reject the same operation with the same reason (part by part).
func TestInPlaceAgreesWithStep(t *testing.T) {
	histories, rejected := 0, 0
	for seed := range uint64(12) {
		list := newWitnessGen(seed, 3+int(seed%4)).run(150)
		for i := -1; i < len(list); i += 7 {
			for variant := range 3 {
				mutant := slices.Clone(list)
				switch {
				case i < 0 && variant == 0: // the legal history itself
				case i < 0:
					continue
				case variant == 0 && mutate(&mutant[i]):
				case variant == 1 && isWorkerStep(list[i].Input):
					mutant = slices.Delete(mutant, i, i+1)
				case variant == 2 && !isWorkerStep(list[i].Input):
					mutant = slices.Insert(mutant, i, ops.Op{Input: ops.WorkerStep{UID: ops.UIDOf(list[i].Input)}})
				default:
					continue
				}
				histories++
				parts := PartitionMarked(toPorcupine(seq(mutant...)))
				r := newWitnessReplayer(len(parts)) // one for all parts, as Replay has
				for q, part := range parts {
					if !compareInPlace(t, &r, q, seed, i, variant, partOps(part)) {
						rejected++
						break
					}
				}
			}
		}
	}
	if rejected == 0 || rejected == histories {
		t.Fatalf("%d of %d histories rejected: want some accepted and some rejected", rejected, histories)
	}
	t.Logf("%d histories, %d rejected", histories, rejected)
}

// compareInPlace runs list on part q both ways (r holds the parts in place,
// as in Replay, so a fork may reuse arrays another part dropped) and
// reports acceptance.
func compareInPlace(t *testing.T, r *replayer, q int, seed uint64, at, variant int, list []ops.Op) bool {
	t.Helper()
	pure := []model.State{model.NewState()}
	for k, o := range list {
		inPlaceErr := r.step(q, &model.PartOp{In: o.Input, Out: o.Output})
		var next []model.State
		var errs []error
		for _, s := range pure {
			succ, err := model.Step(s, o.Input, o.Output)
			if err != nil {
				errs = append(errs, err)
			}
			next = append(next, succ...)
		}
		if (inPlaceErr == nil) != (len(next) > 0) {
			t.Fatalf("seed %d mutant %d/%d op %d %s: in place %v, Step accepts %d states", seed, at, variant, k,
				ops.Describe(o.Input, o.Output), inPlaceErr, len(next))
		}
		if inPlaceErr != nil {
			if want := model.Reasons(errs).Error(); inPlaceErr.Error() != want {
				t.Fatalf("seed %d op %d: in place rejects with %q, Step with %q", seed, k, inPlaceErr, want)
			}
			return false
		}
		pure = distinct(next)
		if !sameStates(r.parts[q], pure) {
			t.Fatalf("seed %d mutant %d/%d op %d %s: in place %v, Step %v", seed, at, variant, k,
				ops.Describe(o.Input, o.Output), describeStates(r.parts[q]), describeStates(pure))
		}
	}
	return true
}

func partOps(part []porcupine.Operation) []ops.Op {
	list := make([]ops.Op, len(part))
	for i, o := range part {
		list[i] = ops.Op{Input: o.Input.(ops.Input), Output: asOutput(o.Output)}
	}
	return list
}

// sameStates: equal as sets (the members of each are distinct).
func sameStates(a, b []model.State) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !slices.ContainsFunc(b, func(s model.State) bool { return s.Equal(a[i]) }) {
			return false
		}
	}
	return true
}

func describeStates(states []model.State) []string {
	var out []string
	for _, s := range states {
		out = append(out, model.DescribeState(s))
	}
	return out
}
