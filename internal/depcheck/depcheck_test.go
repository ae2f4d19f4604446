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

// writeTree writes files (path relative to the root: source) into a new
// temporary directory and returns it.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, src := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// TestCheckCatchesForbiddenEdges writes a small module tree with one
// forbidden edge of each kind and expects each to be reported.
func TestCheckCatchesForbiddenEdges(t *testing.T) {
	root := writeTree(t, map[string]string{
		"workers/bad.go":      `package workers; import _ "github.com/podsim/podsim/sim"`,
		"workers/ok.go":       `package workers; import (_ "fmt"; _ "k8s.io/api/core/v1")`,
		"workers/bad_test.go": `package workers; import _ "github.com/podsim/podsim/model"`,
		"model/bad.go":        `package model; import _ "github.com/podsim/podsim/workers"`,
		"sim/bad.go":          `package sim; import _ "pgregory.net/rapid"`,
		"cmd/simrun/bad.go":   `package main; import _ "github.com/podsim/podsim/workers"`,
		"run/x/bad.go":        `package x; import _ "github.com/podsim/podsim/cmd/simrun"`,
		// The layers: no import runs back up, and no oracle knows a world.
		"oracle/safety/bad.go":       `package safety; import _ "github.com/podsim/podsim/world"`,
		"oracle/kubelet/bad_test.go": `package kubelet; import _ "github.com/podsim/podsim/world"`,
		"oracle/liveness/bad.go":     `package liveness; import _ "github.com/podsim/podsim/workers"`,
		"oracle/latency/ok.go":       `package latency; import (_ "github.com/podsim/podsim/history"; _ "github.com/podsim/podsim/oracle")`,
		"world/bad.go":               `package world; import _ "github.com/podsim/podsim/oracle/safety"`,
		"world/ok.go":                `package world; import _ "github.com/podsim/podsim/oracle"`,
		"world/up_test.go":           `package world; import _ "github.com/podsim/podsim/run"`,
		"oracle/vk/bad.go":           `package vk; import _ "github.com/podsim/podsim/vkworld"`,
		"vkworld/bad.go":             `package vkworld; import _ "github.com/podsim/podsim/oracle/vk"`,
		"vkworld/ok.go":              `package vkworld; import (_ "github.com/podsim/podsim/sim"; _ "github.com/podsim/podsim/history")`,
		"plan/bad.go":                `package plan; import _ "github.com/podsim/podsim/history"`,
		"history/bad.go":             `package history; import _ "github.com/podsim/podsim/oracle"`,
		"run/bad.go":                 `package run; import _ "github.com/podsim/podsim/gate"`,
		"shrink/ok_test.go":          `package shrink; import _ "github.com/podsim/podsim/regress"`,
		"newpkg/unlisted.go":         `package newpkg`,
		"fakeclock/ok_test.go":       `package fakeclock; import _ "testing/synctest"`,
		// Only the world (and the baseline) may switch a mutant on; workers/mutants itself
		// reaches the internal set.
		"workers/prod.go":              `package workers; import _ "github.com/podsim/podsim/workers/mutants"`,
		"cmd/simrun/mutant_test.go":    `package main; import _ "github.com/podsim/podsim/workers/mutants"`,
		"model/mutant.go":              `package model; import _ "github.com/podsim/podsim/workers/mutants"`,
		"world/mutants.go":             `package world; import _ "github.com/podsim/podsim/workers/mutants"`,
		"workers/mutants/m.go":         `package mutants; import (_ "github.com/podsim/podsim/workers"; _ "github.com/podsim/podsim/workers/internal/mutant")`,
		"workers/internal/mutant/m.go": `package mutant; import _ "fmt"`,
		"workers/hook.go":              `package workers; import _ "github.com/podsim/podsim/workers/internal/mutant"`,
	})
	vs, err := Check(root, Rules())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range vs {
		got = append(got, v.File)
	}
	want := []string{"cmd/simrun/bad.go", "cmd/simrun/mutant_test.go", "history/bad.go", "model/bad.go", "model/mutant.go",
		"newpkg/unlisted.go", "oracle/kubelet/bad_test.go", "oracle/liveness/bad.go", "oracle/safety/bad.go",
		"oracle/vk/bad.go", "plan/bad.go", "run/bad.go", "run/x/bad.go", "sim/bad.go", "vkworld/bad.go", "workers/bad.go",
		"workers/bad_test.go", "workers/prod.go", "world/bad.go", "world/up_test.go"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("got violations in %v, want %v\n%v", got, want, vs)
	}
	for _, v := range vs {
		if v.File == "cmd/simrun/mutant_test.go" && v.Why != "only world, workers/mutants, baseline may import workers/mutants" {
			t.Errorf("cmd/simrun/mutant_test.go: got reason %q, want the ImportedOnlyBy rule", v.Why)
		}
	}
}
