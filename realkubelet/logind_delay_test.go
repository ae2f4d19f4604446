package realkubelet

import (
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/realkubelet/planted"
	"github.com/podsim/podsim/realkubelet/script"
)

// logindDelayScript: a shutdown whose groups (13 s) exceed logind's
// short delay (5 s), with logind slow to apply the override.
const logindDelayScript = `logind-delay apply=slow
create a
release a ok
shutdown groups=0:10,1000:3
deliver a
release a ok
release a ok
`

// TestLogindDelayScript: on the pin, the manager overrides logind's
// short delay and starts once logind applied it; the run is clean. With
// logind never applying it (planted), the manager's start times out, it
// never watches, and P7 says so (as does L3: the shutdown never ended).
func TestLogindDelayScript(t *testing.T) {
	r := runActorsScript(t, logindDelayScript, RunOptions{})
	if r.Failed() {
		t.Fatalf("findings: %v", r.Findings)
	}
	if r.Moves[0].Kind != script.MoveLogindDelay || r.Moves[0].Fault != "slow" {
		t.Fatalf("first move %v, want logind-delay apply=slow", r.Moves[0])
	}
	stuck := unexplainedP7(runActorsScript(t, logindDelayScript, RunOptions{plant: planted.LogindDelayStuck}))
	if len(stuck) != 1 || !strings.Contains(stuck[0], "start failed") || !strings.Contains(stuck[0], "timed out after 5 attempts") {
		t.Errorf("stuck override: unexplained P7 %q, want the start's time-out", stuck)
	}
}

// TestLogindDelaySweep: the node-shutdown family's first 40 seeds, both
// modes, with logind's delay short: no unexplained finding, the same trace
// twice, the mode move first.
func TestLogindDelaySweep(t *testing.T) {
	faultSweep(t, RunOptions{LogindDelay: true}, script.MoveLogindDelay, nil)
}

// faultSweep runs the node-shutdown family's first 40 seeds in both
// wake-up modes with o's logind fault, whose move is kind: each run has
// no unexplained finding, the move among its first two (after hold-wakes),
// the same trace when run again, and passes each (if not nil).
func faultSweep(t *testing.T, o RunOptions, kind script.MoveKind, each func(r Result) string) {
	t.Helper()
	f, ok := plan.FamilyNamed("node-shutdown")
	if !ok {
		t.Fatal("no node-shutdown family")
	}
	for _, hold := range []bool{false, true} {
		o.HoldWakes = hold
		for seed := uint64(1); seed <= 40; seed++ {
			r := Bubble(t, func() Result { return RunSeedWith(f, seed, o) })
			if u := r.Unexplained(); len(u) > 0 {
				t.Fatalf("seed %d hold %v: unexplained %v", seed, hold, u)
			}
			if !slices.ContainsFunc(r.Moves[:min(2, len(r.Moves))], func(m script.Move) bool { return m.Kind == kind }) {
				t.Fatalf("seed %d hold %v: the fault's move is not among the first two: %v", seed, hold, r.Moves[:min(2, len(r.Moves))])
			}
			if each != nil {
				if why := each(r); why != "" {
					t.Fatalf("seed %d hold %v: %s", seed, hold, why)
				}
			}
			if again := Bubble(t, func() Result { return RunSeedWith(f, seed, o) }); again.TraceSHA != r.TraceSHA {
				t.Fatalf("seed %d hold %v: trace %s then %s", seed, hold, r.TraceSHA[:8], again.TraceSHA[:8])
			}
		}
	}
}

// unexplainedP7 are r's unexplained P7 findings.
func unexplainedP7(r Result) []string {
	var out []string
	for _, f := range r.Unexplained() {
		if f.Oracle == "conform" && f.Invariant == "P7" {
			out = append(out, f.String())
		}
	}
	return out
}

// TestRestartKeepsLogindDelay: logind's configuration outlives a kubelet
// restart, so the override the first process's manager applied is in
// force for the next one, whose start then neither overrides nor polls:
// the restart takes one step's time, where a manager that met logind's
// short delay again would poll for 1.5 s (apply=slow).
func TestRestartKeepsLogindDelay(t *testing.T) {
	moves, _, err := script.Parse("logind-delay apply=slow\ncreate a\nrestart\nshutdown groups=0:10,1000:5\n")
	if err != nil {
		t.Fatal(err)
	}
	var took time.Duration
	var inForce time.Duration
	synctest.Test(t, func(t *testing.T) {
		d := newDriver(RunOptions{})
		d.graceful = gracefulIn(moves)
		d.Apply(moves[0])
		d.Apply(moves[1])
		before := d.h.Elapsed()
		d.Apply(moves[2])
		took, inForce = d.h.Elapsed()-before, d.actors.Shutdown.DelayInForce()
		for _, m := range moves[3:] {
			d.Apply(m)
		}
		d.Finish("script", 0)
	})
	if took != StepDuration || inForce != 15*time.Second {
		t.Fatalf("the restart took %v with a delay of %v in force, want one step (%v) and the first manager's 15s", took, inForce, StepDuration)
	}
}
