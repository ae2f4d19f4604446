package realkubelet

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/podsim/podsim/model/deviation"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/realkubelet/explain"
	"github.com/podsim/podsim/realkubelet/linjudge"
	"github.com/podsim/podsim/realkubelet/script"
	"github.com/podsim/podsim/realkubelet/syncgate"
	"github.com/podsim/podsim/realkubelet/tape"
)

// TestLatticeRulesCatchEachViolation: each S9 rule reports a known UID's
// answers that break it, and a consistent set reports nothing. The real
// kubelet only ever breaks the G3 rule, so the others are shown here on
// forged answers.
func TestLatticeRulesCatchEachViolation(t *testing.T) {
	// rule → answers breaking it (KT CHR BF TR CBT RBR CBR)
	cases := map[string]explain.Answers{
		"KnownTerminated ≠ RuntimeBeRemoved":                                   {true, false, false, true, true, false, false},
		"KnownTerminated = CouldHaveRunningContainers":                         {false, false, false, false, false, false, false},
		"BeFinished but not KnownTerminated":                                   {false, true, true, false, false, false, false},
		"KnownTerminated but not TerminationRequested":                         {true, false, false, false, true, true, false},
		"ContainersBeTerminating but not TerminationRequested":                 {false, true, false, false, true, false, false},
		"KnownTerminated and RuntimeBeRemoved but not ContainersBeTerminating": {true, false, true, true, false, true, false},
		"ContentBeRemoved for a pod never evicted":                             {false, true, false, true, true, false, true},
	}
	for rule, a := range cases {
		d := &Driver{}
		d.h = tape.New(time.Now, nil)
		d.checkLattice("a", a)
		found := false
		for _, f := range d.checks.findings {
			found = found || (f.Invariant == "S9" && strings.Contains(f.Message, rule))
		}
		if !found {
			t.Errorf("rule %q: answers %s not reported (findings %v)", rule, a, d.checks.findings)
		}
	}
	d := &Driver{}
	d.h = tape.New(time.Now, nil)
	for _, ok := range []explain.Answers{{false, true, false, false, false, false, false}, {true, false, true, true, true, true, true}} {
		d.checkLattice("a", ok)
	}
	if len(d.checks.findings) != 0 {
		t.Errorf("consistent answers reported: %v", d.checks.findings)
	}
}

// TestModelFailureAttribution: a model failure is never explained: not
// with no direct finding, and not when the history is judged again with
// every model deviation switched on (a forged answer no deviation gives).
func TestModelFailureAttribution(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := NewDriver()
		moves, _, _ := script.Parse("create a\nrelease a ok\n")
		d.Apply(moves[0])
		// A forged answer no pod workers could give: a is syncing.
		id := d.h.Call("driver", ops.Query{Kind: ops.IsPodKnownTerminated, UID: "a"})
		d.h.Ret("driver", id, ops.Answer(true))
		d.Apply(moves[1])
		for _, dev := range []deviation.Set{0, deviation.All} {
			lin := linjudge.Check(d.judged(), dev)
			if len(lin.Findings) == 0 || lin.Findings[0].Class != "" {
				t.Fatalf("forged history judged with %s: findings %v, want one unexplained", dev, lin.Findings)
			}
		}
		d.Teardown()
	})
}

// TestS1AndS3BeginChecksCatch: two callbacks of one UID in flight (S1) and
// a SyncPod beginning after termination was requested (S3) are reported;
// the real pod workers never do either, so both are forged here.
func TestS1AndS3BeginChecksCatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := NewDriver()
		moves, _, _ := script.Parse("create a\nremove a\n")
		d.Apply(moves[0]) // SyncPod parked
		orig := d.gates.Parked()[0]
		done := make(chan syncgate.Outcome)
		go func() {
			done <- d.gates.Park(&syncgate.Call{UID: "a", Fn: ops.SyncTerminatedPod, Ctx: context.Background()})
		}()
		synctest.Wait()
		d.Apply(moves[1]) // termination requested; the forged second call overlaps
		d.checkBegin(&syncgate.Call{UID: "a", Fn: ops.SyncPod})
		var s1, s3 bool
		for _, f := range d.checks.findings {
			s1 = s1 || f.Invariant == "S1"
			s3 = s3 || (f.Invariant == "S3" && strings.Contains(f.Message, "SyncPod began after"))
		}
		if !s1 || !s3 {
			t.Errorf("S1 reported %v, S3 reported %v; findings %v", s1, s3, d.checks.findings)
		}
		for _, c := range d.gates.Parked() {
			if c != orig {
				d.gates.ReleaseCall(c, syncgate.ReturnOK)
			}
		}
		<-done
		if !d.Teardown() {
			t.Fatal("teardown did not end")
		}
	})
}
