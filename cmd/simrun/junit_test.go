package main

import (
	"strings"
	"testing"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/run"
)

// TestJUnitFailureCarriesTheReproduceCommand: a failing seed becomes a
// failure element with the violation and the command that replays it; a
// passing one has none. Both are in their family's suite. (The writer is
// tested in its package, the whole file by TestJUnitReport.)
func TestJUnitFailureCarriesTheReproduceCommand(t *testing.T) {
	pass := run.Result{Family: "swarm", Seed: 1}
	fail := run.Result{Family: "swarm", Seed: 2, Violations: []history.Violation{{Oracle: "safety", Invariant: "S3", Message: "pod a: SyncPod after kill"}}}
	suite, c := junitCase(pass, "random")
	if suite != "podsim/swarm" || c.Name != "seed 1" || c.Classname != "podsim.swarm" || c.Failure != nil {
		t.Fatalf("passing seed: suite %q, case %+v", suite, c)
	}
	suite, c = junitCase(fail, "random")
	if suite != "podsim/swarm" || c.Name != "seed 2" || c.Failure == nil {
		t.Fatalf("failing seed: suite %q, case %+v", suite, c)
	}
	if f := c.Failure; !strings.Contains(f.Message, "S3") || !strings.Contains(f.Body, "simrun replay --scenario swarm --seed 2") {
		t.Fatalf("failure %+v lacks the invariant or the reproduce command", f)
	}
}
