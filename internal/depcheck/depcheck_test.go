package depcheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestModuleImportDirections is the check `make deps` runs.
func TestModuleImportDirections(t *testing.T) {
	vs, err := Check("../..", Rules())
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		t.Error(v)
	}
}

// TestCheckCatchesForbiddenEdges writes a small module tree with one
// forbidden edge of each kind and expects each to be reported.
func TestCheckCatchesForbiddenEdges(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"workers/bad.go":       `package workers; import _ "github.com/podsim/podsim/sim"`,
		"workers/ok.go":        `package workers; import (_ "fmt"; _ "k8s.io/api/core/v1")`,
		"workers/bad_test.go":  `package workers; import _ "github.com/podsim/podsim/model"`,
		"model/bad.go":         `package model; import _ "github.com/podsim/podsim/workers"`,
		"sim/bad.go":           `package sim; import _ "pgregory.net/rapid"`,
		"cmd/simrun/bad.go":    `package main; import _ "github.com/podsim/podsim/workers"`,
		"scenarios/x/bad.go":   `package x; import _ "github.com/podsim/podsim/cmd/simrun"`,
		"newpkg/unlisted.go":   `package newpkg`,
		"fakeclock/ok_test.go": `package fakeclock; import _ "testing/synctest"`,
		// Only scenarios may switch a mutant on; workers/mutants itself
		// reaches the internal set.
		"workers/prod.go":              `package workers; import _ "github.com/podsim/podsim/workers/mutants"`,
		"cmd/simrun/mutant_test.go":    `package main; import _ "github.com/podsim/podsim/workers/mutants"`,
		"model/mutant.go":              `package model; import _ "github.com/podsim/podsim/workers/mutants"`,
		"scenarios/gate.go":            `package scenarios; import _ "github.com/podsim/podsim/workers/mutants"`,
		"workers/mutants/m.go":         `package mutants; import (_ "github.com/podsim/podsim/workers"; _ "github.com/podsim/podsim/workers/internal/mutant")`,
		"workers/internal/mutant/m.go": `package mutant; import _ "fmt"`,
		"workers/hook.go":              `package workers; import _ "github.com/podsim/podsim/workers/internal/mutant"`,
		// model/check imports model and porcupine; model never imports
		// model/check, and what may not import model may not import it.
		"model/check/ok.go":       `package check; import (_ "github.com/podsim/podsim/model"; _ "github.com/anishathalye/porcupine")`,
		"model/check/bad.go":      `package check; import _ "github.com/podsim/podsim/sim"`,
		"model/check/bad_test.go": `package check; import _ "github.com/podsim/podsim/scenarios"`,
		"model/cycle.go":          `package model; import _ "github.com/podsim/podsim/model/check"`,
		"workers/check_test.go":   `package workers; import _ "github.com/podsim/podsim/model/check"`,
		"cmd/simrun/check.go":     `package main; import _ "github.com/podsim/podsim/model/check"`,
	}
	for name, src := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	vs, err := Check(root, Rules())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range vs {
		got = append(got, v.File)
	}
	want := []string{"cmd/simrun/bad.go", "cmd/simrun/check.go", "cmd/simrun/mutant_test.go", "model/bad.go",
		"model/check/bad.go", "model/check/bad_test.go", "model/cycle.go", "model/mutant.go",
		"newpkg/unlisted.go", "scenarios/x/bad.go", "sim/bad.go", "workers/bad.go", "workers/bad_test.go",
		"workers/check_test.go", "workers/prod.go"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("got violations in %v, want %v\n%v", got, want, vs)
	}
	for _, v := range vs {
		if v.File == "model/cycle.go" && v.Why != "model must not import model/check" {
			t.Errorf("model/cycle.go: got reason %q, want the model/check Deny rule", v.Why)
		}
		if v.File == "cmd/simrun/mutant_test.go" && v.Why != "only scenarios, workers/mutants may import workers/mutants" {
			t.Errorf("cmd/simrun/mutant_test.go: got reason %q, want the ImportedOnlyBy rule", v.Why)
		}
	}
}
