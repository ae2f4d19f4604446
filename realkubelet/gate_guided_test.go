package realkubelet

import (
	"context"
	"testing"

	"github.com/podsim/podsim/guided"
	"github.com/podsim/podsim/plan"
)

// The gate's guided tier. A seed names the same run on both builds; a
// guided run's input exists only in the loop that drew it, and the loop
// steers by the build's own coverage. So the candidate's loop runs first
// (gateGuided), each run with findings written with its input token, and
// the base runs those inputs again (realdriver.GateFlags.Sweep, -gate.inputs): a key the base's run
// of the same input lacks is a regression, as for a seed.

// gateGuided is -sweep runs of the guided loop (loop seed -sweep.start)
// of f in opts' mode; the family's corpus, with -sweep.corpus, is loaded
// from and saved to that mode's directory under it (corpusDir) and with
// -sweep.rerun its kept entries run first. Every run is handed to emit
// with its index in the loop, its input token and its finding keys.
func gateGuided(t *testing.T, f plan.Family, opts RunOptions, start func(uint64, string), emit func(uint64, string, []string)) {
	o := guided.Options{Seed: *sweepStart, Runs: uint64(*sweepSeeds), Parallel: 1, Replay: *sweepRerun}
	_, err := guided.WalkDir(context.Background(), guided.Announced(guidedRunner{t, f, opts}, func(i uint64, in guided.Input) { start(i, in.Token()) }), corpusDir(*sweepCorpus, opts, "all"), o,
		func(s guided.Step[Result]) { emit(s.Index, s.Input.Token(), GateKeys(s.Result)) })
	if err != nil {
		t.Fatal(err)
	}
}
