package run

import (
	"fmt"
	"strings"
	"testing"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/oracle"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
	"github.com/podsim/podsim/world"
)

// TestOraclesKeepTheObserveContract: every oracle of every family reads
// the event it is handed and neither writes it nor keeps its pointer. An
// audited run (CheckOptions.audit: a write stops it, and each event is
// overwritten once read) is the same run as a plain one, failing seeds and
// mutants included, under the option sets of the Lean test (which turn
// on every tracker).
func TestOraclesKeepTheObserveContract(t *testing.T) {
	var lane Lane
	failed := 0
	for _, f := range plan.Families() {
		for _, opts := range leanOptions(f) {
			audited := opts
			audited.audit = true
			for seed := range uint64(6) {
				plain := lane.RunSeed(f, seed, sim.RandomWalk{}, opts)
				got := lane.RunSeed(f, seed, sim.RandomWalk{}, audited)
				if d := sameResult(got, plain); d != "" {
					t.Fatalf("%s seed %d %+v: audited run: %s", f.Name, seed, opts, d)
				}
				if plain.Failed() {
					failed++
				}
			}
		}
	}
	if failed == 0 {
		t.Fatal("no seed failed: the audit never ran past a violation")
	}
}

// writer breaks the contract by writing the event it reads.
type writer struct{}

func (writer) Observe(_ oracle.View, ev *history.Event)      { ev.Seq += 1000 }
func (writer) Finish(oracle.View, error) []history.Violation { return nil }

// keeper breaks it by keeping the first event's pointer and reading it
// at the end.
type keeper struct {
	first *history.Event
	seq   int64
}

func (k *keeper) Observe(_ oracle.View, ev *history.Event) {
	if k.first == nil {
		k.first, k.seq = ev, ev.Seq
	}
}

func (k *keeper) Finish(oracle.View, error) []history.Violation {
	if k.first.Seq == k.seq {
		return nil
	}
	return []history.Violation{{Oracle: "keeper", Message: fmt.Sprintf("the kept event is %d now, was %d", k.first.Seq, k.seq)}}
}

// TestAuditCatchesABrokenContract: the audit stops a run whose oracle
// writes its event, naming the contract (unaudited, the run passes), and
// makes a kept pointer read the spent event (unaudited, it silently reads
// a later event from the reused slot).
func TestAuditCatchesABrokenContract(t *testing.T) {
	f, _ := plan.FamilyNamed("early-kill")
	runWith := func(audit bool, o oracle.Oracle) Result {
		st := plan.SeedStreams(1)
		w := world.NewWorld(f.Generate(st.Plan), st.Schedule, st.Faults, sim.RandomWalk{})
		return judgeOn(nil, f, 1, w, CheckOptions{audit: audit}, []oracle.Oracle{o})
	}
	if r := runWith(false, writer{}); r.Failed() {
		t.Fatalf("unaudited writer: %v %v", r.Err, r.Violations)
	}
	if r := runWith(true, writer{}); r.Err == nil || !strings.Contains(r.Err.Error(), "Observe contract") {
		t.Errorf("audited writer: err %v, want the Observe contract named", r.Err)
	}
	for _, audit := range []bool{false, true} {
		r := runWith(audit, &keeper{})
		spentRead := len(r.Violations) == 1 && strings.Contains(r.Violations[0].Message, fmt.Sprintf("is %d now", spent.Seq))
		if r.Err != nil || len(r.Violations) != 1 || spentRead != audit {
			t.Errorf("keeper, audit %v: %v %v; want one violation, reading the spent event only when audited", audit, r.Err, r.Violations)
		}
	}
}
