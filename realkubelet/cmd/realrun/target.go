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
	"github.com/podsim/podsim/realkubelet/cmd/realrun/mirror"
	"github.com/podsim/podsim/realkubelet/cmd/realrun/scratch"
	"github.com/podsim/podsim/realkubelet/cmd/realrun/toolrun"
)

// realrun works on one of two real targets, each judged by its own
// module's tool tests (TestSweep, TestReplaySeed, TestShrinkSeed,
// TestGateSweep, TestMutantSweep):
//
//   - the kubelet (default): the pod workers of the pinned release or of
//     --kubernetes DIR, run by the realkubelet module over the kubelet
//     families in both wake-up modes; mutation mutates
//     pkg/kubelet/pod_workers.go;
//   - --vk: the virtual-kubelet pod controller of the module realvk/go.mod
//     pins or of --virtual-kubelet DIR, run by the realvk module over the
//     VK families (one mode, plain); mutation mutates node/pod.go and
//     node/podcontroller.go.
//
// realrun only runs go commands and the built binaries, so it builds the
// realvk module without importing it: one runner for both targets.

// target is the code realrun runs (and, for mutation, mutates) and the
// module whose tool tests judge it.
type target struct {
	files      []string // mutation: the mutated files, relative to the tree, in numbering order
	logCall    *regexp.Regexp
	families   []string
	moduleDir  string // the tool tests' module
	source     string // mutation: the tree the schema is written from
	user       string // the tree the user named ("" for the pin)
	pin        string // mutation: the VK module's path and pinned version
	vk         bool
	faults     []string // the logind faults' test flags (options.faultTestFlags)
	faultFlags string   // and realrun's (options.faultFlags)
}

// vkModule is the virtual-kubelet module's path.
const vkModule = "github.com/virtual-kubelet/virtual-kubelet"

// vkPinned is the virtual-kubelet version realvk/go.mod pins (a test
// keeps the two equal).
const vkPinned = "v1.14.1"

// vkLogCall: a statement that only logs or traces (log.G(ctx)… chains, a
// logger's calls, span.SetStatus, defer span.End(), the span's fields and
// attributes); the tracer and the logger are no-ops in the realvk runs and
// nothing reads them. Events (pc.recorder) stay in: the runs do not
// observe them either, but that is a gap of the checks, not equivalence.
var vkLogCall = regexp.MustCompile(`^((defer )?(log\.G\(ctx\)|logger|span)\.|ctx = span\.|(ctx = )?addPodAttributes\()`)

// targetOf is o's target: the tree the user named and the module that
// runs it.
func targetOf(o options, kubeletDir string) (target, error) {
	if !o.vk {
		return target{files: filesOr(o.files, "pkg/kubelet/pod_workers.go"), logCall: logCall, families: scenarioNames(o),
			moduleDir: kubeletDir, source: o.kubernetes, user: o.kubernetes,
			faults: o.faultTestFlags(), faultFlags: o.faultFlags()}, nil
	}
	t := target{files: filesOr(o.files, "node/pod.go,node/podcontroller.go"), logCall: vkLogCall, families: scenarioNames(o),
		moduleDir: filepath.Join(filepath.Dir(kubeletDir), "realvk"), source: o.virtualKubelet, user: o.virtualKubelet, vk: true}
	if _, err := os.Stat(filepath.Join(t.moduleDir, "go.mod")); err != nil {
		return t, fmt.Errorf("no realvk module beside realkubelet (%s): %v", t.moduleDir, err)
	}
	return t, nil
}

// keyFlag is the shrink tool's flag for a finding key's second word: the
// kubelet's invariant, the virtual-kubelet's check.
func (t target) keyFlag() string {
	if t.vk {
		return "-shrink.check"
	}
	return "-shrink.invariant"
}

// mutationTarget is o's target with the tree its schema is written from
// (the module cache's copy of the pin if the user named none).
func mutationTarget(o options, kubeletDir string) (target, error) {
	t, err := targetOf(o, kubeletDir)
	if err != nil {
		return t, err
	}
	if t.source != "" {
		return t, t.checkFiles()
	}
	if !t.vk {
		if t.source, err = pinnedTreeDir(kubeletDir); err != nil {
			return t, err
		}
		return t, t.checkFiles()
	}
	dir, version, err := vkPinnedDir(t.moduleDir)
	if err != nil {
		return t, err
	}
	t.source, t.pin = dir, vkModule+" "+version
	return t, t.checkFiles()
}

// vkPinnedDir is the module cache's copy of the virtual-kubelet version
// the realvk module at vkDir pins (downloaded if need be), and that
// version.
func vkPinnedDir(vkDir string) (dir, version string, err error) {
	cmd := exec.Command("go", "mod", "download", "-json", vkModule)
	cmd.Dir, cmd.Env = vkDir, append(os.Environ(), "GOWORK=off")
	out, err := cmd.Output()
	var m struct{ Dir, Version string }
	if err == nil {
		err = json.Unmarshal(out, &m)
	}
	if err != nil || m.Dir == "" {
		return "", "", fmt.Errorf("cannot find the pinned virtual-kubelet module: %v", err)
	}
	return m.Dir, m.Version, nil
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
func (t target) label() string { return strings.Join(t.files, ", ") }

// checkVK checks --vk's command line: the commands that have a VK side,
// none of the kubelet's flags (--kubernetes, --hold, --real, --modes:
// the VK runs have one mode), and the trees (--virtual-kubelet, and the
// gate's --base, by default the pin).
func checkVK(o *options, fs *flag.FlagSet) error {
	if o.virtualKubelet != "" {
		o.vk = true
	}
	if !o.vk {
		return nil
	}
	for _, k := range vkRefused {
		if flagSet(fs, k[0]) {
			return fmt.Errorf("--%s %s", k[0], k[1])
		}
	}
	switch {
	case o.command == "workfile" && o.virtualKubelet == "":
		return fmt.Errorf("workfile --vk needs --virtual-kubelet DIR (the pin needs no go.work)")
	case o.virtualKubelet != "" && !scratch.IsModuleRelease(o.virtualKubelet):
		if err := checkVKTree(o.virtualKubelet); err != nil {
			return err
		}
	}
	if !flagSet(fs, "base") {
		o.base = vkPinned
	} else if o.base != vkPinned && !scratch.IsModuleRelease(o.base) {
		if err := checkVKTree(o.base); err != nil {
			return fmt.Errorf("--base: %v (want %s, the pinned module, another release vMAJOR.MINOR.PATCH, or a virtual-kubelet tree)", err, vkPinned)
		}
	}
	o.modes = "plain"
	return nil
}

// vkRefused are the kubelet's flags, refused with --vk, and why.
var vkRefused = [][2]string{
	{"kubernetes", "names a kubernetes tree: with --vk, name the virtual-kubelet's with --virtual-kubelet DIR"},
	{"hold", "holds the kubelet's wake-ups: the virtual-kubelet runs have no wake-up modes"},
	{"modes", "picks the kubelet's wake-up modes: the virtual-kubelet runs have none"},
	{"real", "picks the kubelet's components: the virtual-kubelet runs have none"},
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
	if !bytes.Equal(bytes.TrimSpace(scratch.ModulePathLine(b)), []byte("module "+vkModule)) {
		return fmt.Errorf("--virtual-kubelet %s: go.mod is not module %s", dir, vkModule)
	}
	if _, err := os.Stat(filepath.Join(dir, "node", "podcontroller.go")); err != nil {
		return fmt.Errorf("--virtual-kubelet %s: no node/podcontroller.go", dir)
	}
	return nil
}

// tree names the target's tree in messages and the report.
func (t target) tree() string {
	if t.user != "" {
		return t.user
	}
	if t.vk {
		return t.pin + " (the realvk/go.mod pin)"
	}
	return "the pinned release " + pinned
}

// prepare makes the slot name for source ("" for the pin): the kubelet's
// go.work (package scratch), or for the VK one that uses realvk and replaces the
// virtual-kubelet module with a mirror of source.
func (t target) prepare(root, name, source string) (scratch.Slot, error) {
	if !t.vk {
		return scratch.Prepare(root, name, source, t.moduleDir)
	}
	s := scratch.Slot{Dir: filepath.Join(root, "vk-"+name), Source: source, GoWork: "off", Layout: "pinned module (realvk/go.mod)"}
	if source == "" {
		s.Label = "the pinned virtual-kubelet " + vkPinned
	} else if v, ok := strings.CutPrefix(filepath.Base(source), "virtual-kubelet@"); ok {
		s.Label = "virtual-kubelet " + v // a release: the module cache's copy (vkRelease)
	}
	if err := mirror.Lock(s.Dir); err != nil || source == "" {
		return s, err
	}
	if err := s.MirrorSource(); err != nil {
		return s, err
	}
	s.Layout = "virtual-kubelet tree"
	return s, s.WriteWork(t.moduleDir, [2]string{vkModule, s.Tree()})
}

// tagFlag is the go command's -tags flag that builds realkubelet against
// the target's tree (its API shapes, scratch.TreeTags), or "" if it needs
// none; realvk needs none.
func (t target) tagFlag() string {
	if t.vk {
		return ""
	}
	tags, _ := scratch.TreeTags(t.user)
	return scratch.TagFlag(tags)
}

// ready builds the tool tests in s; the kubelet's binary must pass the
// linkname guard too.
func (t target) ready(s scratch.Slot, trimpath bool) (string, error) {
	progress("building %s (the first build of a tree compiles all of it: minutes)", s.Name())
	if low := scratch.LowDisk(); low != "" {
		progress("warning: %s", low)
	}
	if !t.vk {
		return s.Ready(t.moduleDir, trimpath)
	}
	bin, out, err := s.BuildFull(t.moduleDir)
	if err != nil {
		return "", fmt.Errorf("realvk does not build against %s: %s", s.Name(), toolrun.FirstLines(out, 3))
	}
	return bin, nil
}

// read reads the target's files in tree.
func (t target) read(tree string) (map[string][]byte, error) {
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
func (t target) findMutants(srcs map[string][]byte) (ms []mutation.Mutant, logging int, err error) {
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
