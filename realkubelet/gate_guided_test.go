package realkubelet

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/podsim/podsim/guided"
	"github.com/podsim/podsim/plan"
)

// The gate's guided tier. A seed names the same run on both builds; a
// guided run's input exists only in the loop that drew it, and the loop
// steers by the build's own coverage. So the candidate's loop runs first
// (gateGuided), each run with findings written with its input token, and
// the base runs those inputs again (gateInputRuns): a key the base's run
// of the same input lacks is a regression, as for a seed.

// gateGuided is -sweep runs of the guided loop (loop seed -sweep.start) of
// each family in each mode; each family's corpus, with -sweep.corpus, is
// loaded from and saved to that mode's directory under it (corpusDir) and
// with -sweep.rerun its kept entries run first. The runs with findings,
// each with its index in the loop as Seed and its input token.
func gateGuided(t *testing.T, modes []string, fams []plan.Family, plant plantedBug) []GateRun {
	if *sweepRerun && *sweepCorpus == "" {
		t.Fatalf("-sweep.rerun needs -sweep.corpus (the corpora to run again)")
	}
	p := gateProgressor{every: *gateProgress, total: len(modes) * len(fams) * *sweepSeeds, w: os.Stderr, unit: "run"}
	var runs []GateRun
	for _, mode := range modes {
		for _, f := range fams {
			opts := RunOptions{HoldWakes: mode == "hold", plant: plant}
			o := guided.Options{Seed: *sweepStart, Runs: uint64(*sweepSeeds), Parallel: 1, Replay: *sweepRerun}
			_, err := guided.WalkDir(context.Background(), guidedRunner{t, f, opts}, corpusDir(*sweepCorpus, opts, "all"), o,
				func(s guided.Step[Result]) {
					keys := GateKeys(s.Result)
					if len(keys) > 0 {
						runs = append(runs, GateRun{Family: f.Name, Seed: s.Index, Hold: opts.HoldWakes, Keys: keys, Input: s.Input.Token()})
					}
					p.ran(f.Name, mode, s.Index, len(keys) > 0)
				})
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	return runs
}

// gateInputRuns runs again every guided run of the -gate.inputs file
// (another build's gateGuided), in its own family and mode; the runs with
// findings, named as the file names them.
func gateInputRuns(t *testing.T, plant plantedBug) []GateRun {
	b, err := os.ReadFile(*gateInputs)
	if err != nil {
		t.Fatal(err)
	}
	var in []GateRun
	if err := json.Unmarshal(b, &in); err != nil {
		t.Fatalf("-gate.inputs %s: %v", *gateInputs, err)
	}
	fams := plan.KubeletFamilies()
	p := gateProgressor{every: *gateProgress, total: len(in), w: os.Stderr, unit: "run"}
	var runs []GateRun
	for _, r := range in {
		i := slices.IndexFunc(fams, func(f plan.Family) bool { return f.Name == r.Family })
		if i < 0 {
			t.Fatalf("-gate.inputs %s: run %d: no family %q on this target", *gateInputs, r.Seed, r.Family)
		}
		token, err := guided.ParseToken(r.Input)
		if err != nil {
			t.Fatalf("-gate.inputs %s: %s run %d: %v", *gateInputs, r.Family, r.Seed, err)
		}
		opts := RunOptions{HoldWakes: r.Hold, plant: plant}
		keys := GateKeys(runInput(t, fams[i], token, opts))
		if len(keys) > 0 {
			runs = append(runs, GateRun{Family: r.Family, Seed: r.Seed, Hold: r.Hold, Keys: keys, Input: r.Input})
		}
		p.ran(r.Family, modeOf(r.Hold), r.Seed, len(keys) > 0)
	}
	return runs
}

// modeOf names a run's wake-up mode: hold (HoldWakes) or plain.
func modeOf(hold bool) string {
	if hold {
		return "hold"
	}
	return "plain"
}
