package run

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/oracle"
	"github.com/podsim/podsim/oracle/conform"
	"github.com/podsim/podsim/oracle/latency"
	"github.com/podsim/podsim/oracle/liveness"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
	"github.com/podsim/podsim/world"
)

// twin runs two oracles of one kind side by side: all sees every event,
// some only those of kinds (as judge hands them to it), and differ says
// after which event the two first differed in anything they hold or found.
type twin struct {
	all, some oracle.Oracle
	kinds     oracle.Kinds
	left      int // events left out of some
	differ    string
}

func (t *twin) Observe(v oracle.View, ev *history.Event) {
	t.all.Observe(v, ev)
	if t.kinds.Has(ev.Kind) {
		t.some.Observe(v, ev)
	} else {
		t.left++
	}
	if t.differ == "" && !reflect.DeepEqual(t.all, t.some) {
		t.differ = fmt.Sprintf("after event %d (%v): %+v vs %+v", ev.Seq, ev.Kind, t.all, t.some)
	}
}

func (t *twin) Finish(v oracle.View, err error) []history.Violation {
	a, b := t.all.Finish(v, err), t.some.Finish(v, err)
	if t.differ == "" && !slices.Equal(a, b) {
		t.differ = fmt.Sprintf("at the end: %v vs %v", a, b)
	}
	return nil
}

// kindsOracles are the oracles judge hands only the events of their kinds
// (readers), each made afresh.
var kindsOracles = map[string]func(plan.Plan) oracle.Oracle{
	"requeue":   func(plan.Plan) oracle.Oracle { return latency.NewRequeue(requeuePeriods) },
	"killnow":   func(plan.Plan) oracle.Oracle { return latency.NewKillNow() },
	"freshness": func(plan.Plan) oracle.Oracle { return latency.NewFreshness() },
	"leaks":     func(plan.Plan) oracle.Oracle { return liveness.NewWorkerLeaks() },
	"marker":    func(plan.Plan) oracle.Oracle { return markerOracle{markObserver{history.NewMarker()}} },
	"conform":   conform.New,
}

// markerOracle is the marker as judge hands it events (markObserver, only
// those of markKinds), an oracle for the twins.
type markerOracle struct{ markObserver }

func (markerOracle) Finish(oracle.View, error) []history.Violation { return nil }
func (markerOracle) Kinds() oracle.Kinds                           { return markKinds }

// kindsDiffer runs seed of f (under mutant, "" for none) with a twin of
// each oracle of makers, its kinds those kinds gives it, and returns the
// first difference found ("" if none) and how many events the twins left
// out.
func kindsDiffer(f plan.Family, seed uint64, mutant string, makers map[string]func(plan.Plan) oracle.Oracle,
	kinds func(oracle.Oracle) oracle.Kinds) (string, int) {
	st := plan.SeedStreams(seed)
	w := world.NewWorld(f.Generate(st.Plan), st.Schedule, st.Faults, sim.RandomWalk{})
	if err := reintroduce(w, mutant); err != nil {
		return err.Error(), 0
	}
	var twins []*twin
	var extra []oracle.Oracle
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for n := range makers {
			if !yield(n) {
				return
			}
		}
	}) {
		tw := &twin{all: makers[name](w.Plan()), some: makers[name](w.Plan())}
		tw.kinds = kinds(tw.some)
		twins, extra = append(twins, tw), append(extra, tw)
	}
	judge(f, seed, w, CheckOptions{Mutant: mutant}, extra)
	left := 0
	for i, tw := range twins {
		left += tw.left
		if tw.differ != "" {
			return fmt.Sprintf("oracle %d: %s", i, tw.differ), left
		}
	}
	return "", left
}

// kindsChecked runs kindsDiffer over seeds of every family the world runs
// (no virtual-kubelet plan) and every catalogued mutant on its families,
// stopping at the first difference.
func kindsChecked(seeds uint64, makers map[string]func(plan.Plan) oracle.Oracle, kinds func(oracle.Oracle) oracle.Kinds) (string, int) {
	left := 0
	families := map[string]plan.Family{}
	for _, f := range plan.Families() {
		if f.Generate(plan.SeedStreams(0).Plan).VK != nil {
			continue
		}
		families[f.Name] = f
		for seed := range seeds {
			diff, n := kindsDiffer(f, seed, "", makers, kinds)
			if left += n; diff != "" {
				return fmt.Sprintf("%s seed %d: %s", f.Name, seed, diff), left
			}
		}
	}
	for _, m := range world.Mutants() {
		for _, name := range m.Families {
			if f, ok := families[name]; ok {
				diff, n := kindsDiffer(f, 0, m.Name, makers, kinds)
				if left += n; diff != "" {
					return fmt.Sprintf("mutant %s, %s seed 0: %s", m.Name, f.Name, diff), left
				}
			}
		}
	}
	return "", left
}

// TestKindsAreWhatOraclesRead: every oracle judge hands only the events of
// its kinds (oracle.KindFilter) holds and finds, after every event of every
// run, exactly what the same oracle handed every event does: in every
// family the world runs and under every catalogued mutant. It fails too if
// no event was left out (nothing compared).
func TestKindsAreWhatOraclesRead(t *testing.T) {
	seeds := uint64(3)
	if testing.Short() {
		seeds = 1
	}
	kinds := kindsOf
	diff, left := kindsChecked(seeds, kindsOracles, kinds)
	if diff != "" {
		t.Fatal(diff)
	}
	if left == 0 {
		t.Fatal("no event was left out of any oracle: nothing was compared")
	}
	t.Logf("%d events left out, the oracles the same", left)
}

// TestCarelessKindsCaught: the comparison behind TestKindsAreWhatOraclesRead
// catches an oracle whose kinds leave out one it reads: the requeue check
// without CallbackEnd (the returns it times the requeue from).
func TestCarelessKindsCaught(t *testing.T) {
	careless := func(oracle.Oracle) oracle.Kinds { return oracle.KindsOf(history.Restarted, history.Noted) }
	diff, _ := kindsChecked(1, map[string]func(plan.Plan) oracle.Oracle{"requeue": kindsOracles["requeue"]}, careless)
	if diff == "" {
		t.Fatal("the requeue check without CallbackEnd agreed with the one handed every event")
	}
	t.Logf("caught: %.200s", diff)
}

// TestCarelessMarkerKindsCaught: the same comparison catches a marker
// whose kinds leave out CallbackEnd (a callback's end, which ends what the
// marker holds in flight for its pod).
func TestCarelessMarkerKindsCaught(t *testing.T) {
	careless := func(oracle.Oracle) oracle.Kinds { return markKinds &^ oracle.KindsOf(history.CallbackEnd) }
	diff, _ := kindsChecked(1, map[string]func(plan.Plan) oracle.Oracle{"marker": kindsOracles["marker"]}, careless)
	if diff == "" {
		t.Fatal("the marker without CallbackEnd agreed with the one handed every event")
	}
	t.Logf("caught: %.200s", diff)
}

// TestCarelessConformKindsCaught: the same comparison catches the
// conformance checker whose kinds leave out ClientReturn (the returns its
// actions' calls wait for). (TestKindsAreWhatOraclesRead catches one that
// marks the position of every event it is handed, read or not, where its
// violations are found: that moves on an event of a kind left out.)
func TestCarelessConformKindsCaught(t *testing.T) {
	careless := func(o oracle.Oracle) oracle.Kinds { return kindsOf(o) &^ oracle.KindsOf(history.ClientReturn) }
	diff, _ := kindsChecked(1, map[string]func(plan.Plan) oracle.Oracle{"conform": kindsOracles["conform"]}, careless)
	if diff == "" {
		t.Fatal("the conformance checker without ClientReturn agreed with the one handed every event")
	}
	t.Logf("caught: %.200s", diff)
}
