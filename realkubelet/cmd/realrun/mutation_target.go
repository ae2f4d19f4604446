package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/podsim/podsim/internal/mutation"
	"github.com/podsim/podsim/plan"
)

// realrun mutation mutates one of two real targets' code, judged by that
// target's tool test TestMutantSweep (realdriver.MutantSweep):
//
//   - the kubelet (default): pkg/kubelet/pod_workers.go of the pinned
//     release or of --kubernetes DIR, judged by the realkubelet module over
//     the kubelet families in both wake-up modes;
//   - --vk: node/pod.go and node/podcontroller.go of the virtual-kubelet
//     module realvk/go.mod pins, or of --virtual-kubelet DIR, judged by the
//     realvk module over the VK families (one mode, plain).
//
// realrun only runs go commands and the built binaries, so it builds the
// realvk module without importing it: one runner for both targets' mutants.

// mutTarget is the code a mutation run mutates and the module whose tool
// tests judge it.
type mutTarget struct {
	files     []string // the mutated files, relative to the tree, in numbering order
	logCall   *regexp.Regexp
	families  []string
	moduleDir string // the tool tests' module
	source    string // the tree the schema is written from
	user      string // the tree the user named ("" for the pin)
	pin       string // the VK module's path and pinned version
	vk        bool
}

// vkModule is the virtual-kubelet module's path.
const vkModule = "github.com/virtual-kubelet/virtual-kubelet"

// vkLogCall: a statement that only logs or traces (log.G(ctx)… chains, a
// logger's calls, span.SetStatus, defer span.End(), the span's fields and
// attributes); the tracer and the logger are no-ops in the realvk runs and
// nothing reads them. Events (pc.recorder) stay in: the runs do not
// observe them either, but that is a gap of the checks, not equivalence.
var vkLogCall = regexp.MustCompile(`^((defer )?(log\.G\(ctx\)|logger|span)\.|ctx = span\.|(ctx = )?addPodAttributes\()`)

// mutationTarget is o's target, its trees found.
func mutationTarget(o options, kubeletDir string) (mutTarget, error) {
	if !o.vk {
		t := mutTarget{files: filesOr(o.files, "pkg/kubelet/pod_workers.go"),
			logCall: logCall, families: familyNames(), moduleDir: kubeletDir, source: o.kubernetes, user: o.kubernetes}
		if t.source == "" {
			dir, err := pinnedTreeDir(kubeletDir)
			if err != nil {
				return t, err
			}
			t.source = dir
		}
		return t, t.checkFiles()
	}
	t := mutTarget{files: filesOr(o.files, "node/pod.go,node/podcontroller.go"),
		logCall: vkLogCall, families: namesOf(plan.VKFamilies()), moduleDir: filepath.Join(filepath.Dir(kubeletDir), "realvk"),
		source: o.virtualKubelet, user: o.virtualKubelet, vk: true}
	if _, err := os.Stat(filepath.Join(t.moduleDir, "go.mod")); err != nil {
		return t, fmt.Errorf("no realvk module beside realkubelet (%s): %v", t.moduleDir, err)
	}
	if t.source == "" {
		cmd := exec.Command("go", "mod", "download", "-json", vkModule)
		cmd.Dir, cmd.Env = t.moduleDir, append(os.Environ(), "GOWORK=off")
		out, err := cmd.Output()
		var m struct{ Dir, Version string }
		if err == nil {
			err = json.Unmarshal(out, &m)
		}
		if err != nil || m.Dir == "" {
			return t, fmt.Errorf("cannot find the pinned virtual-kubelet module: %v", err)
		}
		t.source, t.pin = m.Dir, vkModule+" "+m.Version
	}
	return t, t.checkFiles()
}

// namesOf lists the families' names.
func namesOf(fams []plan.Family) []string {
	var out []string
	for _, f := range fams {
		out = append(out, f.Name)
	}
	return out
}

// label names the target's files, for messages and the report.
func (t mutTarget) label() string { return strings.Join(t.files, ", ") }

// checkVK refuses --vk and --virtual-kubelet outside mutation, with
// --kubernetes or with --modes (the VK runs have one mode, plain), and
// checks the tree.
func checkVK(o *options, fs *flag.FlagSet) error {
	if o.virtualKubelet != "" {
		o.vk = true
	}
	switch {
	case !o.vk:
		return nil
	case o.command != "mutation":
		return fmt.Errorf("--vk and --virtual-kubelet are for mutation only (the VK runs: make realvk-sweep)")
	case o.kubernetes != "":
		return fmt.Errorf("--vk mutates the virtual-kubelet, not a kubernetes tree: drop --kubernetes")
	case flagSet(fs, "modes"):
		return fmt.Errorf("--modes: the virtual-kubelet runs have no wake-up modes")
	case o.virtualKubelet != "":
		if err := checkVKTree(o.virtualKubelet); err != nil {
			return err
		}
	}
	o.modes = "plain"
	return nil
}

// scenarioNames are the families --scenario may name.
func scenarioNames(o options) []string {
	if o.vk {
		return namesOf(plan.VKFamilies())
	}
	return familyNames()
}

// checkVKTree says what is wrong with a --virtual-kubelet directory.
func checkVKTree(dir string) error {
	b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return fmt.Errorf("--virtual-kubelet %s: not a virtual-kubelet tree (no go.mod)", dir)
	}
	if !bytes.Equal(bytes.TrimSpace(modulePathLine(b)), []byte("module "+vkModule)) {
		return fmt.Errorf("--virtual-kubelet %s: go.mod is not module %s", dir, vkModule)
	}
	if _, err := os.Stat(filepath.Join(dir, "node", "podcontroller.go")); err != nil {
		return fmt.Errorf("--virtual-kubelet %s: no node/podcontroller.go", dir)
	}
	return nil
}

// tree names the target's tree in messages and the report.
func (t mutTarget) tree() string {
	if t.user != "" {
		return t.user
	}
	if t.vk {
		return t.pin + " (the realvk/go.mod pin)"
	}
	return "the pinned release " + pinned
}

// prepare makes the slot name for source ("" for the pin): the kubelet's
// go.work (tree.go), or for the VK one that uses realvk and replaces the
// virtual-kubelet module with a mirror of source.
func (t mutTarget) prepare(root, name, source string) (slot, error) {
	if !t.vk {
		return prepare(root, name, source, t.moduleDir)
	}
	s := slot{dir: filepath.Join(root, "vk-"+name), source: source, gowork: "off", layout: "pinned module (realvk/go.mod)"}
	if err := os.MkdirAll(s.dir, 0o755); err != nil || source == "" {
		return s, err
	}
	mirror := filepath.Join(s.dir, "tree")
	if err := mirrorTree(source, mirror); err != nil {
		return s, fmt.Errorf("mirroring %s: %v", source, err)
	}
	s.layout, s.gowork = "virtual-kubelet tree", filepath.Join(s.dir, "go.work")
	work := fmt.Sprintf("go 1.26.0\n\nuse %s\n\nreplace %s => %s\n", t.moduleDir, vkModule, mirror)
	return s, os.WriteFile(s.gowork, []byte(work), 0o644)
}

// ready builds the tool tests in s; the kubelet's binary must pass the
// linkname guard too.
func (t mutTarget) ready(s slot, trimpath bool) (string, error) {
	if !t.vk {
		return s.ready(t.moduleDir, trimpath)
	}
	bin, out, err := s.buildFull(t.moduleDir)
	if err != nil {
		return "", fmt.Errorf("realvk does not build against %s: %s", s.name(), firstLines(out, 3))
	}
	return bin, nil
}

// read reads the target's files in tree.
func (t mutTarget) read(tree string) (map[string][]byte, error) {
	srcs := map[string][]byte{}
	for _, f := range t.files {
		b, err := os.ReadFile(filepath.Join(tree, f))
		if err != nil {
			return nil, err
		}
		srcs[f] = b
	}
	return srcs, nil
}

// findMutants lists the mutants of the target's files (read's), logging
// statements left out; a mutant's number is Find's in its file plus the
// count of Find's mutants in the files before it.
func (t mutTarget) findMutants(srcs map[string][]byte) (ms []mutation.Mutant, logging int, err error) {
	offset := 0
	for _, f := range t.files {
		in, skipped, all, err := findMutants(f, srcs[f], t.logCall)
		if err != nil {
			return nil, 0, err
		}
		for _, m := range in {
			m.Index += offset
			ms = append(ms, m)
		}
		logging, offset = logging+skipped, offset+all
	}
	return ms, logging, nil
}
