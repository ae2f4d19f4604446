package run

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/oracle"
	"github.com/podsim/podsim/oracle/conform"
	"github.com/podsim/podsim/oracle/coverage"
	"github.com/podsim/podsim/oracle/kubelet"
	"github.com/podsim/podsim/oracle/latency"
	"github.com/podsim/podsim/oracle/linearize"
	"github.com/podsim/podsim/oracle/liveness"
	"github.com/podsim/podsim/oracle/safety"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
	"github.com/podsim/podsim/world"
)

// recycled are the fields that hold a record or buffer kept for reuse
// (emptied when it is taken), not state: a reset one may hold what a fresh
// one does not.
// conform's clientRecs are its client records, emptied when reset takes
// one; its clientNames, the plan clients' goroutine names by index, are the same
// for every plan.
var recycled = map[string]bool{"freeHK": true, "freeKnown": true, "freeCalls": true, "freeAction": true, "freePods": true, "freeIncs": true,
	"clientRecs": true, "clientNames": true, "freeArrays": true}

// freshDiff says where reset, an emptied structure, differs from fresh, the
// same structure as its constructor makes it: every field, through
// pointers, maps and slices, compared by content (an empty map or slice is
// the same whether nil or kept, a function only by being set), "" when
// nowhere. Unlike comparing results, it sees a field left over even when
// no seed reads it before writing it.
func freshDiff(path string, reset, fresh reflect.Value, depth int) string {
	if depth > 30 {
		return ""
	}
	if reset.Kind() != fresh.Kind() {
		return path + ": kinds differ"
	}
	switch reset.Kind() {
	case reflect.Pointer, reflect.Interface:
		if reset.IsNil() || fresh.IsNil() {
			if reset.IsNil() != fresh.IsNil() {
				return fmt.Sprintf("%s: set %v, fresh set %v", path, !reset.IsNil(), !fresh.IsNil())
			}
			return ""
		}
		if reset.Kind() == reflect.Interface && reset.Elem().Type() != fresh.Elem().Type() {
			return path + ": types differ"
		}
		return freshDiff(path, reset.Elem(), fresh.Elem(), depth+1)
	case reflect.Struct:
		for i := range reset.NumField() {
			name := reset.Type().Field(i).Name
			if recycled[name] {
				continue
			}
			if d := freshDiff(path+"."+name, reset.Field(i), fresh.Field(i), depth+1); d != "" {
				return d
			}
		}
		return ""
	case reflect.Map:
		if reset.Len() != fresh.Len() {
			return fmt.Sprintf("%s: %d entries, fresh %d", path, reset.Len(), fresh.Len())
		}
		for _, k := range reset.MapKeys() {
			if d := freshDiff(fmt.Sprintf("%s[%v]", path, k), reset.MapIndex(k), fresh.MapIndex(k), depth+1); d != "" {
				return d
			}
		}
		return ""
	case reflect.Slice, reflect.Array:
		if reset.Len() != fresh.Len() {
			return fmt.Sprintf("%s: length %d, fresh %d", path, reset.Len(), fresh.Len())
		}
		for i := range reset.Len() {
			if d := freshDiff(fmt.Sprintf("%s[%d]", path, i), reset.Index(i), fresh.Index(i), depth+1); d != "" {
				return d
			}
		}
		return ""
	case reflect.Func:
		if reset.IsNil() != fresh.IsNil() {
			return path + ": function set differently"
		}
		return ""
	}
	if a, b := fmt.Sprint(reset), fmt.Sprint(fresh); a != b {
		return fmt.Sprintf("%s: %s, fresh %s", path, a, b)
	}
	return ""
}

// resetDiffs empties every structure l keeps, as its next seed (a run of
// p on w) would, and says where each differs from one made fresh.
func resetDiffs(l *Lane, p plan.Plan, w *world.World) []string {
	type pair struct {
		name         string
		reset, fresh any
	}
	opts := linearizeOptions(CheckOptions{}, w)
	l.cov.Reset()
	l.marks.Reset()
	pairs := []pair{{"conform", conform.Reuse(l.conform, p), conform.New(p)}, {"coverage", l.cov, coverage.New()},
		{"marker", l.marks, history.NewMarker()}}
	fresh := [slots]oracle.Oracle{kubelet.New(), newRequeue(), latency.NewKillNow(), latency.NewFreshness(), liveness.NewWorkerLeaks()}
	for i, o := range l.slots {
		if o == nil {
			continue // a run without a kubelet made no kubelet-level check yet
		}
		o.(oracle.Resetter).Reset()
		pairs = append(pairs, pair{slotNames[i], o, fresh[i]})
	}
	for k, set := range l.epochs {
		set[0] = linearize.Reuse(set[0], opts)
		for _, o := range set[1:] {
			o.(oracle.Resetter).Reset()
		}
		for i, f := range []oracle.Oracle{linearize.New(opts), safety.New(), liveness.New(livenessPeriods), latency.New()} {
			pairs = append(pairs, pair{fmt.Sprintf("epoch %d oracle %d", k, i), set[i], f})
		}
	}
	var diffs []string
	for _, pr := range pairs {
		if d := freshDiff(pr.name, reflect.ValueOf(pr.reset), reflect.ValueOf(pr.fresh), 0); d != "" {
			diffs = append(diffs, d)
		}
	}
	return diffs
}

// TestLaneResetsAreFresh: after each seed of every family's laneJobs on a
// lane, each structure the lane keeps, emptied, is field for field what
// its constructor makes (freshDiff), so nothing of a seed can reach the
// next one, read or not.
func TestLaneResetsAreFresh(t *testing.T) {
	p := plan.Families()[0].Generate(plan.SeedStreams(1).Plan)
	w := world.NewWorld(p, sim.NewReplay(nil), sim.NewReplay(nil), sim.RandomWalk{})
	defer w.S.Close()
	var l Lane
	seen := map[string]bool{}
	for _, f := range plan.Families() {
		for _, j := range laneJobs(f) {
			l.RunSeed(f, j.seed, sim.RandomWalk{}, j.opts)
			if l.conform == nil {
				continue // a virtual-kubelet family first: nothing kept yet
			}
			for _, d := range resetDiffs(&l, p, w) {
				if !seen[d] {
					seen[d] = true
					t.Errorf("after %s seed %d: %s", f.Name, j.seed, d)
				}
			}
		}
	}
	if len(l.epochs) < 2 {
		t.Errorf("%d epoch sets: no seed restarted the kubelet", len(l.epochs))
	}
}

// TestFreshDiffSeesARun: freshDiff tells a structure a seed has run
// through, not emptied, from a fresh one (each the lane keeps, after one
// swarm-restart seed), so TestLaneResetsAreFresh can fail.
func TestFreshDiffSeesARun(t *testing.T) {
	f, ok := plan.FamilyNamed("swarm-restart")
	if !ok {
		t.Fatal("no swarm-restart family")
	}
	var l Lane
	l.RunSeed(f, 1, sim.RandomWalk{}, CheckOptions{})
	p := f.Generate(plan.SeedStreams(1).Plan)
	w := world.NewWorld(p, sim.NewReplay(nil), sim.NewReplay(nil), sim.RandomWalk{})
	defer w.S.Close()
	opts := linearizeOptions(CheckOptions{}, w)
	used := map[string][2]any{"conform": {l.conform, conform.New(p)}, "coverage": {l.cov, coverage.New()},
		"marker": {l.marks, history.NewMarker()}, "kubelet": {l.slots[slotKubelet], kubelet.New()},
		"freshness": {l.slots[slotFreshness], latency.NewFreshness()}, "leaks": {l.slots[slotWorkerLeaks], liveness.NewWorkerLeaks()},
		"linearize": {l.epochs[0][0], linearize.New(opts)}, "safety": {l.epochs[0][1], safety.New()},
		"liveness": {l.epochs[0][2], liveness.New(livenessPeriods)}, "latency": {l.epochs[0][3], latency.New()}}
	for name, u := range used {
		if d := freshDiff(name, reflect.ValueOf(u[0]), reflect.ValueOf(u[1]), 0); d == "" {
			t.Errorf("%s after a seed, not emptied, looks fresh", name)
		}
	}
}
