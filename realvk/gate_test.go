package realvk

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/podsim/podsim/guided"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/realdriver"
)

// gateFlags are the gate tool's; the VK runs have one mode, plain.
var gateFlags = realdriver.NewGateFlags("plain")

// TestGateSweep is the differential gate's tool on the real controller
// (realrun gate --vk runs it on the base and on the candidate
// virtual-kubelet, once per tier; realdriver.GateFlags.Sweep): -sweep
// seeds of every VK family (or -sweep.family), or -sweep runs of the
// guided loop (-gate.strategy guided, its corpora in -sweep.corpus), or
// the guided runs another build wrote (-gate.inputs).
func TestGateSweep(t *testing.T) {
	if *sweepRerun && *sweepCorpus == "" {
		t.Fatalf("-sweep.rerun needs -sweep.corpus (the corpora to run again)")
	}
	tg := realdriver.GateTarget{Families: plan.VKFamilies(), Modes: []string{"plain"},
		Seed: func(f plan.Family, _ string, seed uint64) []string {
			var r Result
			synctest.Test(t, func(t *testing.T) { r = RunSeed(f, seed) })
			return gateKeys(r)
		},
		Guided: func(f plan.Family, _ string, start func(uint64, string), emit func(uint64, string, []string)) {
			o := guided.Options{Seed: *sweepStart, Runs: uint64(*sweepSeeds), Parallel: 1, Replay: *sweepRerun}
			_, err := guided.WalkDir(context.Background(), guided.Announced(guidedRunner{t, f}, func(i uint64, in guided.Input) { start(i, in.Token()) }), *sweepCorpus, o,
				func(s guided.Step[Result]) { emit(s.Index, s.Input.Token(), gateKeys(s.Result)) })
			if err != nil {
				t.Fatal(err)
			}
		},
		Input: func(f plan.Family, _ string, token string) ([]string, error) {
			in, err := guided.ParseToken(token)
			if err != nil {
				return nil, err
			}
			return gateKeys(runInput(t, f, in)), nil
		},
	}
	gateFlags.Sweep(t, tg, *sweepOnly, *sweepSeeds, *sweepStart)
}

// gateKeys are r's finding keys for the gate ("CLASS CHECK"), sorted,
// once each.
func gateKeys(r Result) []string {
	return realdriver.GateKeys(r.Findings, func(f Finding) (string, string) { return f.Class, f.Check })
}
