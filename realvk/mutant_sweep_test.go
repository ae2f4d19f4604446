package realvk

import (
	"io"
	"os"
	"slices"
	"testing"
	"testing/synctest"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/realdriver"
)

// The mutation sweep's tool (realrun mutation --vk runs it against a
// schema build of the virtual-kubelet module): every VK family (or those
// of -sweep.family, comma-separated), seeds -sweep.start on, seed by seed,
// as realdriver.MutantSweep makes them; the VK runs have one mode, plain.
// -mutant.record writes every run's trace digest and finding keys (the
// base, on the unmutated module; the schema build with no mutant on must
// write the same lines). -mutant.base reads such a file and stops at the
// first run with a finding key ("CLASS/CHECK", UNEXPLAINED for none) the
// base's run lacks, writing the verdict to -mutant.out.
var mutantFlags = realdriver.NewMutantFlags()

// TestMutantSweep is the mutation sweep's tool (see above). Before each
// run it prints "run FAMILY plain seed S" on stderr, so that the caller can
// name the run a hanging or crashing mutant was in.
func TestMutantSweep(t *testing.T) {
	mutantFlags.Run(t, *sweepSeeds, func(base map[string]string) ([]string, realdriver.MutantVerdict) {
		return mutantSweep(t, os.Stderr, base, *sweepOnly, *sweepStart, *sweepSeeds)
	})
}

// mutantSweep is realdriver.MutantSweep over the VK families (or the
// comma-separated list only), each run in its bubble; an unknown family
// or a run the base lacks fails t.
func mutantSweep(t *testing.T, progress io.Writer, base map[string]string, only string, start uint64, seeds int) ([]string, realdriver.MutantVerdict) {
	lines, v, err := realdriver.MutantSweep(progress, base, []string{"plain"}, plan.VKFamilies(), only, start, seeds, func(_ string, f plan.Family, seed uint64) realdriver.MutantRun {
		var r Result
		synctest.Test(t, func(t *testing.T) { r = RunSeed(f, seed) })
		keys := classesOf(r)
		slices.Sort(keys)
		return realdriver.MutantRun{TraceSHA: r.TraceSHA, Keys: keys}
	})
	if err != nil {
		t.Fatalf("-sweep.family: %v", err)
	}
	return lines, v
}

// TestMutantSweepOfItsOwnRecord: the VK runs replay byte for byte under
// TestMutantSweep (realdriver.CheckMutantSweepReplays).
func TestMutantSweepOfItsOwnRecord(t *testing.T) {
	realdriver.CheckMutantSweepReplays(t, func(base map[string]string) ([]string, realdriver.MutantVerdict) {
		return mutantSweep(t, io.Discard, base, "vk-swarm,vk-delete-recreate", 1, 4)
	})
}
