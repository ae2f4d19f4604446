package main

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestLogindRestartFlag: --logind-restart reaches the test binary as
// -sweep.logind (run, replay, shrink, mutation); it is refused, in one
// line, for a command, target or component set without a node shutdown
// manager, and for a kubelet whose Start reconnects forever.
func TestLogindRestartFlag(t *testing.T) {
	o, err := parse(strings.Fields("run --scenario node-shutdown --logind-restart --logind-delay --hold"), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if args, _ := toolArgs(o); !slices.Contains(args, "-sweep.logind") || !slices.Contains(args, "-sweep.hold") || !slices.Contains(args, "-sweep.logind-delay") {
		t.Errorf("run args %q: want -sweep.logind, -sweep.logind-delay and -sweep.hold", args)
	}
	if got := gateTiers(options{logindDelay: true, modes: "plain", seeds: 1, scenario: "swarm"})[0].args(); !slices.Contains(got, "-sweep.logind-delay") {
		t.Errorf("gate tier args %q: want -sweep.logind-delay", got)
	}
	o, err = parse(strings.Fields("mutation --logind-restart"), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if args := (&mutationRun{o: o, t: target{}}).sweepArgs(); !slices.Contains(args, "-sweep.logind") {
		t.Errorf("mutation args %q: want -sweep.logind", args)
	}
	if args, _ := toolArgs(options{command: "replay", scenario: "swarm", seed: "3", real: "all"}); slices.Contains(args, "-sweep.logind") {
		t.Errorf("replay without the flag: %q", args)
	}
	bad := map[string]string{
		"run --logind-restart --vk":                         "--logind-restart changes logind under the kubelet's node shutdown manager: the virtual-kubelet runs have none",
		"run --logind-restart --real status,eviction":       "--real status,eviction leaves out shutdown",
		"run --logind-delay --vk":                           "--logind-delay changes logind under the kubelet's node shutdown manager",
		"mutation --logind-delay --real none":               "--logind-delay needs the node shutdown manager",
		"workfile --kubernetes v1.37.2 --logind-restart":    "--logind-restart is not a flag of workfile",
		"run --logind-restart --real shutdown --seeds 0":    "--seeds must be positive",
		"replay --logind-restart --scenario swarm --seed 1": "",
	}
	wantParse(t, bad)

	tree := fakeTree(t)
	refused := []struct {
		o    options
		want string
	}{
		{options{command: "run", logind: true}, "the pinned release " + pinned + " reconnects forever: give --kubernetes v1.37.2"},
		{options{command: "run", logind: true, kubernetes: tree}, "that of " + tree + " (--kubernetes) does not"},
		{options{command: "run", logind: true, kubernetes: tree, candArg: "v1.36.3"}, "that of v1.36.3 (--kubernetes) does not"},
		{options{command: "gate", logind: true, kubernetes: tree, base: pinned}, "reconnects forever: give --base v1.37.2"},
		{options{command: "gate", logind: true, mutants: true, base: tree}, "that of " + tree + " (--base) does not"},
	}
	for _, c := range refused {
		if err := checkLogindTrees(c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error containing %q", c.o, err, c.want)
		}
	}
	if err := checkLogindTrees(options{command: "run"}); err != nil {
		t.Errorf("no --logind-restart: %v", err)
	}
	f := filepath.Join(tree, "pkg", "kubelet", "nodeshutdown", "nodeshutdown_manager_linux.go")
	if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
		t.Fatal(err)
	}
	start := "package nodeshutdown\n\nfunc (m *managerImpl) Start(ctx context.Context) error {\n\t<-ctx.Done()\n\treturn nil\n}\n"
	if err := os.WriteFile(f, []byte(start), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, o := range []options{{command: "run", logind: true, kubernetes: tree}, {command: "gate", logind: true, kubernetes: tree, base: tree},
		{command: "gate", logind: true, mutants: true, base: tree}} {
		if err := checkLogindTrees(o); err != nil {
			t.Errorf("%+v, a tree with v1.37's Start: %v", o, err)
		}
	}
	if args := (tier{Faults: []string{"-sweep.logind"}, Inputs: "x"}).args(); !slices.Contains(args, "-sweep.logind") {
		t.Errorf("the base's inputs tier: %q", args)
	}
	if got := reproduce(false, "v1.37.2", change{Family: "node-shutdown", Seed: 3, Mode: "hold"}, options{logind: true, logindDelay: true}.faultFlags()); !strings.HasSuffix(got, " --hold --logind-restart --logind-delay") {
		t.Errorf("reproduce: %q", got)
	}
}

// TestLogindHint: mutating the node shutdown manager of a v1.37 tree
// without --logind-restart says what survives for want of a run; with the
// flag, another file, or a tree without the tag, nothing.
func TestLogindHint(t *testing.T) {
	tags := []string{logindTag}
	if got := logindHint(options{}, []string{"a.go", shutdownFile}, tags); !strings.Contains(got, "without --logind-restart") || !strings.Contains(got, "without --logind-delay") {
		t.Errorf("hint: %q", got)
	}
	if got := logindHint(options{logindDelay: true}, []string{shutdownFile}, nil); got != "" {
		t.Errorf("the pin with --logind-delay: hint %q, want none (it cannot restart logind)", got)
	}
	if got := logindHint(options{}, []string{shutdownFile}, nil); strings.Contains(got, "--logind-restart") || !strings.Contains(got, "--logind-delay") {
		t.Errorf("the pin: hint %q, want only --logind-delay's", got)
	}
	for _, c := range []struct {
		o     options
		files []string
		tags  []string
	}{{options{logind: true, logindDelay: true}, []string{shutdownFile}, tags}, {options{}, []string{"pkg/kubelet/pod_workers.go"}, tags}, {options{vk: true}, []string{shutdownFile}, tags}} {
		if got := logindHint(c.o, c.files, c.tags); got != "" {
			t.Errorf("%+v %v %v: hint %q, want none", c.o, c.files, c.tags, got)
		}
	}
}
