package realkubelet

import (
	"io"
	"os"
	"testing"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/realdriver"
)

// The mutation sweep's tool (realrun mutation runs it): the same runs as
// the gate's (every family, seeds -sweep.start on, the wake-up modes
// -gate.modes), in seed order — seed s of every family in each mode, then
// seed s+1 — so that a kill at seed s means the default sweep needs s
// seeds per family. -mutant.record writes every run's trace digest and
// finding keys (the base, on the unmutated tree; the schema build with no
// mutant on must write the same lines). -mutant.base reads such a file and
// stops at the first run with a finding key the base run lacks (the gate's
// regression), writing the verdict to -mutant.out.
var mutantFlags = realdriver.NewMutantFlags()

// TestMutantSweep is the mutation sweep's tool (see above). Before each
// run it prints "run FAMILY MODE seed S" on stderr, so that the caller can
// name the run a hanging or crashing mutant was in.
func TestMutantSweep(t *testing.T) {
	mutantFlags.Run(t, *sweepSeeds, func(base map[string]string) ([]string, realdriver.MutantVerdict) {
		return mutantSweep(t, os.Stderr, base, gateFlags.Modes(), *sweepOnly, *sweepStart, *sweepSeeds)
	})
}

// mutantSweep is realdriver.MutantSweep over the kubelet families (or the
// comma-separated list only), each run in its bubble; an unknown family, a
// run the base lacks, or a mode other than plain and hold, fails t.
func mutantSweep(t *testing.T, progress io.Writer, base map[string]string, modes []string, only string, start uint64, seeds int) ([]string, realdriver.MutantVerdict) {
	for _, m := range modes {
		if m != "plain" && m != "hold" {
			t.Fatalf("unknown mode %q (want plain or hold)", m)
		}
	}
	logind := logindFlag(t)
	lines, v, err := realdriver.MutantSweep(progress, base, modes, plan.KubeletFamilies(), only, start, seeds, func(mode string, f plan.Family, seed uint64) realdriver.MutantRun {
		o := RunOptions{HoldWakes: mode == "hold", LogindRestart: logind, LogindDelay: *sweepDelay}
		r := Bubble(t, func() Result { return RunSeedWith(f, seed, o) })
		return realdriver.MutantRun{TraceSHA: r.TraceSHA, Keys: GateKeys(r)}
	})
	if err != nil {
		t.Fatalf("-sweep.family: %v", err)
	}
	return lines, v
}

// TestMutantSweepOfItsOwnRecord: the kubelet runs replay byte for byte under
// TestMutantSweep (realdriver.CheckMutantSweepReplays).
func TestMutantSweepOfItsOwnRecord(t *testing.T) {
	realdriver.CheckMutantSweepReplays(t, func(base map[string]string) ([]string, realdriver.MutantVerdict) {
		return mutantSweep(t, io.Discard, base, []string{"plain", "hold"}, "grace-shortening,update-storm", 1, 2)
	})
}
