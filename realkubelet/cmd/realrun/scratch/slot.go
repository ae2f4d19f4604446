// Package scratch is where realrun builds a tree: a slot of its scratch
// directory holds a mirror of the tree, the go.work that builds
// realkubelet (or realvk) against it, and the test binary; a kubernetes
// release is assembled there too (release.go). The user's tree is never
// written.
package scratch

import (
	"bytes"
	"cmp"
	"fmt"
	"go/version"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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

// Slot is one place a tree is built.
type Slot struct {
	Dir    string // <scratch>/<name>
	Source string // the user's tree; "" for the pinned release
	GoWork string // "off" for the pinned release
	Layout string // what the tree looked like (for the report)
	Label  string // what the slot is called, if not its tree or "the pinned release" (the VK pin, a mutant)
	// Unstaged: a kubernetes tree without staging/src/k8s.io, built with
	// the staging modules at realkubelet/go.mod's versions.
	Unstaged bool
	// Tags are the build tags of the tree's API shapes and behaviours (TreeTags).
	Tags []string
}

// Root is $PODSIM_SCRATCH, or podsim-realrun in the user cache.
func Root() (string, error) {
	if d := os.Getenv("PODSIM_SCRATCH"); d != "" {
		return filepath.Abs(d)
	}
	c, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no scratch directory (set PODSIM_SCRATCH): %v", err)
	}
	return filepath.Join(c, "podsim-realrun"), nil
}

// CheckTree says what is wrong with a --kubernetes directory, if anything.
func CheckTree(flag, dir string) error {
	b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return fmt.Errorf("--%s %s: not a kubernetes tree (no go.mod)", flag, dir)
	}
	if !bytes.HasPrefix(bytes.TrimSpace(ModulePathLine(b)), []byte("module k8s.io/kubernetes")) {
		return fmt.Errorf("--%s %s: go.mod is not module k8s.io/kubernetes", flag, dir)
	}
	if _, err := os.Stat(filepath.Join(dir, "pkg", "kubelet", "pod_workers.go")); err != nil {
		return fmt.Errorf("--%s %s: no pkg/kubelet/pod_workers.go", flag, dir)
	}
	return nil
}

// ModulePathLine is go.mod's module line.
func ModulePathLine(gomod []byte) []byte {
	for _, l := range bytes.Split(gomod, []byte("\n")) {
		if bytes.HasPrefix(bytes.TrimSpace(l), []byte("module ")) {
			return l
		}
	}
	return nil
}

// Prepare mirrors the tree into the slot and writes its go.work.
func Prepare(root, name, source, moduleDir string) (Slot, error) {
	s := Slot{Dir: filepath.Join(root, name), Source: source, GoWork: "off", Layout: "pinned release (realkubelet/go.mod)"}
	if err := mirror.Lock(s.Dir); err != nil {
		return s, err
	}
	if v, ok := releaseOf(root, source); ok {
		s.Label = "kubernetes " + v
	}
	if source == "" {
		return s, nil
	}
	if err := s.MirrorSource(); err != nil {
		return s, err
	}
	replaces := [][2]string{{"k8s.io/kubernetes", s.Tree()}}
	staging, _ := filepath.Glob(filepath.Join(s.Tree(), "staging", "src", "k8s.io", "*", "go.mod"))
	slices.Sort(staging)
	for _, m := range staging {
		dir := filepath.Dir(m)
		replaces = append(replaces, [2]string{"k8s.io/" + filepath.Base(dir), dir})
	}
	s.Layout, s.Unstaged = "module-shaped tree (no staging/src/k8s.io: staging modules at realkubelet/go.mod's versions)", true
	if len(staging) > 0 {
		s.Layout, s.Unstaged = fmt.Sprintf("kubernetes checkout (staging/src/k8s.io: %d modules replaced)", len(staging)), false
	}
	tags, what := TreeTags(s.Tree())
	if len(tags) > 0 {
		s.Tags, s.Layout = tags, s.Layout+"; built with -tags "+strings.Join(tags, ",")+": "+strings.Join(what, ", ")
	}
	return s, s.WriteWork(moduleDir, replaces...)
}

// Tree is where the slot mirrors its source tree.
func (s Slot) Tree() string { return filepath.Join(s.Dir, "tree") }

// MirrorSource copies the slot's source tree to Tree.
func (s Slot) MirrorSource() error {
	if err := MirrorTree(s.Source, s.Tree()); err != nil {
		return fmt.Errorf("mirroring %s: %v", s.Source, err)
	}
	return nil
}

// WriteWork writes the slot's go.work and sets GoWork: the Go of the
// mirror's go.mod (WorkGo), use moduleDir, and each module replaced by
// its directory, in the order given.
func (s *Slot) WriteWork(moduleDir string, replaces ...[2]string) error {
	var w strings.Builder
	fmt.Fprintf(&w, "go %s\n\nuse %s\n\n", WorkGo(s.Tree()), moduleDir)
	for _, r := range replaces {
		fmt.Fprintf(&w, "replace %s => %s\n", r[0], r[1])
	}
	s.GoWork = filepath.Join(s.Dir, "go.work")
	return os.WriteFile(s.GoWork, []byte(w.String()), 0o644)
}

// WorkGo is the go line of a slot's go.work for tree: the Go its go.mod
// names if newer than realkubelet's and realvk's 1.26.0. Under
// GOTOOLCHAIN=auto, the go command's default, a tree that needs a newer Go
// (v1.38: 1.27.0) is then built with that Go, fetched by the go command;
// under GOTOOLCHAIN=local the build stops saying which Go it needs
// (goCommandAdvice). A go line in the replaced tree alone would not switch.
func WorkGo(tree string) string {
	const ours = "1.26.0"
	b, err := os.ReadFile(filepath.Join(tree, "go.mod"))
	if err != nil {
		return ours
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) == 2 && f[0] == "go" && version.IsValid("go"+f[1]) {
			if version.Compare("go"+f[1], "go"+ours) > 0 {
				return f[1]
			}
			break
		}
	}
	return ours
}

// skipped are top-level directories of a kubernetes checkout the build
// never reads (and of a virtual-kubelet tree: .git).
var skipped = map[string]bool{".git": true, "_output": true, "vendor": true, ".make": true, "_artifacts": true}

// MirrorTree makes dst a copy of src's files but skipped's directories.
func MirrorTree(src, dst string) error { return mirror.Tree(src, dst, skipped) }

// GoEnv is the environment of every go command and tool binary run for s.
func (s Slot) GoEnv() []string { return append(os.Environ(), "GOWORK="+s.GoWork) }

// goTest is a go test -c command line: args, then the slot's tag flag.
func (s Slot) goTest(args ...string) []string {
	if f := TagFlag(s.Tags); f != "" {
		args = append(args, f)
	}
	return append([]string{"test", "-c"}, args...)
}

// Build compiles the realkubelet tool tests against the slot's tree.
func (s Slot) Build(moduleDir string, trimpath bool) (string, error) {
	bin := filepath.Join(s.Dir, "realkubelet.test")
	args := s.goTest("-o", bin)
	if trimpath {
		args = append(args, "-trimpath")
	}
	cmd := exec.Command("go", append(args, ".")...)
	cmd.Dir, cmd.Env = moduleDir, s.GoEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("the adapter does not build against %s: %s; %s", s.Name(), toolrun.FirstLines(out, 3), buildAdvice(out, s.Unstaged))
	}
	return bin, nil
}

// fitAdvice is the one line that says what to do when a tree's pod
// workers no longer fit the adapter.
const fitAdvice = "the tree's pod workers no longer fit the adapter: compare newPodWorkers, podSyncer and " +
	"podWorkers.workerChannelFn in its pkg/kubelet/pod_workers.go with realkubelet/podworkers (adapter.go, cache_get.go, hook.go), update those " +
	"(an API in two shapes, as the status cache's reads: a build tag, scratch/shapes.go), and re-run realrun"

// buildAdvice says what to do about a failed build, by what the go
// command says failed: packages the tree lacks (of a staging module, in
// an unstaged tree: staging modules older than the tree), the tree's own
// packages, the pod workers' adapter, or another of realkubelet's
// packages (a component whose API the tree changed); "# PKG" lines name
// the packages whose compile failed.
func buildAdvice(out []byte, unstaged bool) string {
	if a, ok := goCommandAdvice(out); ok {
		return a
	}
	const ours = "github.com/podsim/podsim/"
	var failed, lacks []string
	for _, l := range strings.Split(string(out), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "#" && !slices.Contains(failed, f[1]) {
			failed = append(failed, f[1]) // "# PKG" or "# PKG [PKG.test]"
		}
		if _, rest, ok := strings.Cut(l, "no required module provides package "); ok {
			if p := strings.TrimSuffix(strings.Fields(rest + " ")[0], ";"); !slices.Contains(lacks, p) {
				lacks = append(lacks, p)
			}
		}
	}
	if unstaged && slices.ContainsFunc(lacks, func(p string) bool { return !strings.HasPrefix(p, "k8s.io/kubernetes/") }) {
		return "the tree has no staging/src/k8s.io, so it builds with realkubelet/go.mod's staging modules, which lack packages it imports (" +
			strings.Join(lacks, ", ") + "): give a checkout with staging/src/k8s.io, or name the tree's release (--kubernetes v1.MINOR.PATCH)"
	}
	if len(lacks) > 0 {
		return "the tree lacks packages realkubelet imports (" + strings.Join(lacks, ", ") + "): it is not a whole kubernetes tree, " +
			"or one whose kubelet no longer fits the adapter"
	}
	var tree, adapter []string
	for _, p := range failed {
		switch {
		case p == ours+"realkubelet/podworkers":
			return fitAdvice
		case strings.HasPrefix(p, ours):
			adapter = append(adapter, strings.TrimPrefix(p, ours))
		default:
			tree = append(tree, p)
		}
	}
	switch {
	case len(tree) > 0:
		return "the tree's own packages do not compile here (" + strings.Join(tree, ", ") + "): the tree does not build " +
			"(try `go build ./pkg/kubelet/...` in it), or it needs older dependencies than realkubelet/go.mod requires, " +
			"whose versions win (a tree older than realkubelet's pin)"
	case len(adapter) > 0:
		return "the tree changed an API that " + strings.Join(adapter, ", ") + " calls (as kubernetes v1.36 and v1.37 declare it): " +
			"this tree needs a change in podsim there; the lines above name the call"
	}
	return fitAdvice
}

var (
	toolchainRE = regexp.MustCompile(`requires go >= (\S+) \(running go (\S+); GOTOOLCHAIN=`)
	unservedRE  = regexp.MustCompile(`(\S+@\S+): reading \S+: (\d{3} [A-Za-z ]+)`)
)

// goCommandAdvice says what to do when the go command stopped before
// compiling anything: the tree needs a newer Go than the one running, or a
// module the build needs is not served by the module proxy.
func goCommandAdvice(out []byte) (string, bool) {
	if m := toolchainRE.FindSubmatch(out); m != nil {
		return toolchainAdvice(string(m[1]), string(m[2])), true
	}
	if m := unservedRE.FindSubmatch(out); m != nil {
		return fmt.Sprintf("the build needs %s, which the module proxy does not serve (%s): make it reachable through GOPROXY, "+
			"or build a tree that requires a version it serves", m[1], bytes.TrimSpace(m[2])), true
	}
	return "", false
}

// toolchainAdvice says which Go to set for a tree that needs Go want
// where the go command running is have.
func toolchainAdvice(want, have string) string {
	return fmt.Sprintf("the tree needs Go %s and this go command is %s: set GOTOOLCHAIN=go%s (or a newer go%s.N; "+
		"the go command fetches that toolchain through the module proxy) and run realrun again", want, have, want, minorOf(want))
}

// minorOf is 1.27 of 1.27.0.
func minorOf(v string) string {
	if i := strings.LastIndex(v, "."); strings.Count(v, ".") == 2 {
		return v[:i]
	}
	return v
}

// Guard runs the linkname guard (and the hook's drift check) with the
// slot's binary; it must pass before anything else runs on the tree.
func (s Slot) Guard(bin, moduleDir string) error {
	cmd := exec.Command(bin, "-test.run", "^(TestLinknameSignature|TestWorkerChannelHookRefusesDrift|TestFakeLogindFits)$", "-test.count=1")
	cmd.Dir, cmd.Env = moduleDir, s.GoEnv()
	out, err := cmd.CombinedOutput()
	switch {
	case err == nil:
		return nil
	case bytes.Contains(out, []byte("--- FAIL: TestFakeLogindFits")):
		return fmt.Errorf("the fake logind does not fit %s: %s; %s", s.Name(), logindMismatch(out), logindAdvice)
	}
	return fmt.Errorf("linkname guard failed on %s: %s; %s", s.Name(), toolrun.FirstLines(out, 2), fitAdvice)
}

// logindAdvice is the one line that says what to do when a tree's node
// shutdown manager asks logind for a method the fake lacks.
const logindAdvice = "the tree's node shutdown manager calls logind through a method realkubelet/shutdown's fake " +
	"(Logind, dbus.go) does not have: add it there, answering as logind would, and re-run realrun"

// logindMismatch is the guard's reason from TestFakeLogindFits' output:
// its "lacks a method" line, without the file position.
func logindMismatch(out []byte) string {
	for _, l := range strings.Split(string(out), "\n") {
		if i := strings.Index(l, "the fake logind"); i >= 0 {
			return strings.TrimSpace(l[i:])
		}
	}
	return toolrun.FirstLines(out, 2)
}

// Name is what reports call the slot's tree.
func (s Slot) Name() string {
	if s.Label != "" || s.Source == "" {
		return cmp.Or(s.Label, "the pinned release")
	}
	return s.Source
}

// Ready builds the slot's binary and runs the linkname guard with it.
func (s Slot) Ready(moduleDir string, trimpath bool) (string, error) {
	bin, err := s.Build(moduleDir, trimpath)
	if err != nil {
		return "", err
	}
	return bin, s.Guard(bin, moduleDir)
}

// BuildFull is Build without the guard's module, -vet=off, and with the
// compiler's whole output (a schema build names its refused mutants there).
func (s Slot) BuildFull(moduleDir string) (string, []byte, error) {
	bin := filepath.Join(s.Dir, filepath.Base(moduleDir)+".test")
	cmd := exec.Command("go", append(s.goTest("-vet=off", "-o", bin), ".")...)
	cmd.Dir, cmd.Env = moduleDir, s.GoEnv()
	out, err := cmd.CombinedOutput()
	return bin, out, err
}
