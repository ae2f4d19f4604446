package main

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/podsim/podsim/cmd/simrun/internal/junit"
	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/run"
)

// TestJUnitFailureCarriesTheReproduceCommand: a failing seed becomes a
// failure element with the violation and the command that replays it.
func TestJUnitFailureCarriesTheReproduceCommand(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.xml")
	results := []run.Result{
		{Family: "swarm", Seed: 1},
		{Family: "swarm", Seed: 2, Violations: []history.Violation{{Oracle: "safety", Invariant: "S3", Message: "pod a: SyncPod after kill"}}},
	}
	j, err := junit.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		addJUnit(j, r, "random", 1500*time.Microsecond)
	}
	if err := j.Close([]junit.Property{{Name: "simrun.version", Value: "devel"}}); err != nil {
		t.Fatal(err)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*")); len(left) != 0 {
		t.Fatalf("temporary files left: %v", left)
	}
	data, _ := os.ReadFile(path)
	var doc junit.Suites
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	s := doc.Suites[0]
	if doc.Tests != 2 || s.Name != "podsim/swarm" || s.Tests != 2 || s.Failures != 1 || s.Cases[0].Failure != nil || s.Cases[1].Failure == nil ||
		s.Cases[0].Time != "0.001500" || s.Time != "0.003000" || len(s.Properties) != 1 {
		t.Fatalf("got %+v, want 2 tests with the second failing", s)
	}
	f := s.Cases[1].Failure
	if !strings.Contains(f.Message, "S3") || !strings.Contains(f.Body, "simrun replay --scenario swarm --seed 2") {
		t.Fatalf("failure %+v lacks the invariant or the reproduce command", f)
	}
}
