package main

import (
	"bytes"
	"cmp"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/podsim/podsim/realkubelet/cmd/realrun/mirror"
	"github.com/podsim/podsim/realkubelet/cmd/realrun/toolrun"
)

// A kubelet tree is built in a scratch slot, never in the user's tree:
//
//	<scratch>/<slot>/tree/           a mirror of the tree (sources only)
//	<scratch>/<slot>/go.work         use <realkubelet>; replace k8s.io/kubernetes
//	                                 (and staging/src/k8s.io/* if present) => the mirror
//	<scratch>/<slot>/realkubelet.test  the tool-test binary built against it
//
// The mirror keeps the tree at a fixed path per slot, so the Go build
// cache (keyed on file contents and paths) is reused from one run to the
// next: after the first build of a slot only the packages whose files
// changed recompile. The pinned release (no --kubernetes) needs no mirror
// and builds with GOWORK=off against realkubelet/go.mod.

// slot is one place a tree is built.
type slot struct {
	dir    string // <scratch>/<name>
	source string // the user's tree; "" for the pinned release
	gowork string // "off" for the pinned release
	layout string // what the tree looked like (for the report)
	label  string // what the slot is called, if not its tree or "the pinned release" (the VK pin, a mutant)
}

// scratchRoot is $PODSIM_SCRATCH, or podsim-realrun in the user cache.
func scratchRoot() (string, error) {
	if d := os.Getenv("PODSIM_SCRATCH"); d != "" {
		return filepath.Abs(d)
	}
	c, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no scratch directory (set PODSIM_SCRATCH): %v", err)
	}
	return filepath.Join(c, "podsim-realrun"), nil
}

// checkTree says what is wrong with a --kubernetes directory, if anything.
func checkTree(flag, dir string) error {
	b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return fmt.Errorf("--%s %s: not a kubernetes tree (no go.mod)", flag, dir)
	}
	if !bytes.HasPrefix(bytes.TrimSpace(modulePathLine(b)), []byte("module k8s.io/kubernetes")) {
		return fmt.Errorf("--%s %s: go.mod is not module k8s.io/kubernetes", flag, dir)
	}
	if _, err := os.Stat(filepath.Join(dir, "pkg", "kubelet", "pod_workers.go")); err != nil {
		return fmt.Errorf("--%s %s: no pkg/kubelet/pod_workers.go", flag, dir)
	}
	return nil
}

func modulePathLine(gomod []byte) []byte {
	for _, l := range bytes.Split(gomod, []byte("\n")) {
		if bytes.HasPrefix(bytes.TrimSpace(l), []byte("module ")) {
			return l
		}
	}
	return nil
}

// prepare mirrors the tree into the slot and writes its go.work.
func prepare(root, name, source, moduleDir string) (slot, error) {
	s := slot{dir: filepath.Join(root, name), source: source, gowork: "off", layout: "pinned release (realkubelet/go.mod)"}
	if err := mirror.Lock(s.dir); err != nil {
		return s, err
	}
	if source == "" {
		return s, nil
	}
	mirror := filepath.Join(s.dir, "tree")
	if err := mirrorTree(source, mirror); err != nil {
		return s, fmt.Errorf("mirroring %s: %v", source, err)
	}
	var w strings.Builder
	fmt.Fprintf(&w, "go 1.26.0\n\nuse %s\n\nreplace k8s.io/kubernetes => %s\n", moduleDir, mirror)
	staging, _ := filepath.Glob(filepath.Join(mirror, "staging", "src", "k8s.io", "*", "go.mod"))
	slices.Sort(staging)
	for _, m := range staging {
		dir := filepath.Dir(m)
		fmt.Fprintf(&w, "replace k8s.io/%s => %s\n", filepath.Base(dir), dir)
	}
	s.layout = "module-shaped tree (no staging/src/k8s.io: staging modules at realkubelet/go.mod's versions)"
	if len(staging) > 0 {
		s.layout = fmt.Sprintf("kubernetes checkout (staging/src/k8s.io: %d modules replaced)", len(staging))
	}
	s.gowork = filepath.Join(s.dir, "go.work")
	return s, os.WriteFile(s.gowork, []byte(w.String()), 0o644)
}

// skipped are top-level directories of a kubernetes checkout the build
// never reads (and of a virtual-kubelet tree: .git).
var skipped = map[string]bool{".git": true, "_output": true, "vendor": true, ".make": true, "_artifacts": true}

// mirrorTree makes dst a copy of src's files but skipped's directories.
func mirrorTree(src, dst string) error { return mirror.Tree(src, dst, skipped) }

// goEnv is the environment of every go command and tool binary run for s.
func (s slot) goEnv() []string { return append(os.Environ(), "GOWORK="+s.gowork) }

// build compiles the realkubelet tool tests against the slot's tree.
func (s slot) build(moduleDir string, trimpath bool) (string, error) {
	bin := filepath.Join(s.dir, "realkubelet.test")
	args := []string{"test", "-c", "-o", bin}
	if trimpath {
		args = append(args, "-trimpath")
	}
	cmd := exec.Command("go", append(args, ".")...)
	cmd.Dir, cmd.Env = moduleDir, s.goEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("the adapter does not build against %s: %s; %s", s.name(), toolrun.FirstLines(out, 3), fitAdvice)
	}
	return bin, nil
}

// fitAdvice is the one line that says what to do when a tree no longer
// fits the adapter.
const fitAdvice = "the tree's pod workers no longer fit the adapter: compare newPodWorkers, podSyncer and " +
	"podWorkers.workerChannelFn in its pkg/kubelet/pod_workers.go with realkubelet/podworkers (adapter.go, hook.go), update those, and re-run realrun"

// guard runs the linkname guard (and the hook's drift check) with the
// slot's binary; it must pass before anything else runs on the tree.
func (s slot) guard(bin, moduleDir string) error {
	cmd := exec.Command(bin, "-test.run", "^(TestLinknameSignature|TestWorkerChannelHookRefusesDrift)$", "-test.count=1")
	cmd.Dir, cmd.Env = moduleDir, s.goEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("linkname guard failed on %s: %s; %s", s.name(), toolrun.FirstLines(out, 2), fitAdvice)
	}
	return nil
}

func (s slot) name() string {
	if s.label != "" || s.source == "" {
		return cmp.Or(s.label, "the pinned release")
	}
	return s.source
}
