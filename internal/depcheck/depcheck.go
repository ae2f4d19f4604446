// Package depcheck enforces the import directions of docs/design.md
// ("Layout") mechanically: every package of the module must
// appear in the table below, and may import only what its row allows. It
// reads import clauses with go/parser, so it needs no build and no network.
package depcheck

import (
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Module is the module path; module-internal imports are written relative
// to it in the rules ("sim", "workers").
const Module = "github.com/podsim/podsim"

// Rule governs a package directory and every directory below it, unless a
// longer Dir matches. An import is allowed if it matches Allow (when Allow
// is non-empty) and matches no Deny entry. Entries match by path prefix at
// a "/" boundary; "std" matches every standard-library path.
type Rule struct {
	Dir   string
	Allow []string
	Deny  []string
	// TestDeny applies to _test.go files, which are otherwise free.
	TestDeny []string
	// ImportedOnlyBy, if set, turns the rule around: only packages under
	// these directories (tests included) may import the rule's package.
	ImportedOnlyBy []string
}

// Rules returns the table of docs/design.md: every import runs down the
// layers, and no oracle imports a world, a target or the code under test.
func Rules() []Rule {
	k8s := []string{"k8s.io/api", "k8s.io/apimachinery"}
	oracles := []string{"oracle/safety", "oracle/liveness", "oracle/linearize", "oracle/latency", "oracle/kubelet", "oracle/coverage",
		"oracle/vk", "oracle/vkcoverage", "oracle/conform", "oracle/nearmiss"}
	above := func(pkgs ...string) []string { return append([]string{"cmd"}, pkgs...) }
	return []Rule{
		{Dir: "fakeclock", Allow: []string{"std", "k8s.io/utils/clock"}},
		{Dir: "sim", Allow: []string{"std", "fakeclock"}},
		{Dir: "workers", Allow: []string{"std", "k8s.io/api", "k8s.io/apimachinery", "k8s.io/utils",
			"workers/internal/mutant"}, TestDeny: []string{"model"}},
		{Dir: "workers/internal/mutant", Allow: []string{"std"}},
		// workers/mutants switches catalogued bugs on: only the regression
		// gate's world (and the baseline) may do that, never production code
		// by accident.
		{Dir: "workers/mutants", Allow: []string{"std", "workers"},
			ImportedOnlyBy: []string{"world", "workers/mutants", "baseline"}},
		{Dir: "model", Allow: []string{"std", "github.com/anishathalye/porcupine", "model/deviation", "model/ops"},
			TestDeny: []string{"workers", "sim", "world", "run", "model/check"}},
		// The operation vocabulary the model is stated over (and the
		// recorders fill in), below the model; every caller names it directly.
		{Dir: "model/ops", Allow: []string{"std"}},
		// The switches that turn one rule of the model back into upstream's:
		// a set of names the model's states carry, below the model.
		{Dir: "model/deviation", Allow: []string{"std"}},
		// The checker beside the specification: partitioning, the witness
		// replay, porcupine's adapters.
		{Dir: "model/check", Allow: []string{"std", "github.com/anishathalye/porcupine", "model"},
			TestDeny: []string{"workers", "sim", "world", "run"}},
		// The shared vocabulary: plans, the history of a run, the oracles'
		// seam. None knows a target.
		{Dir: "plan", Allow: append([]string{"std", "sim"}, k8s...)},
		{Dir: "history", Allow: append([]string{"std", "github.com/anishathalye/porcupine", "model", "plan"}, k8s...)},
		{Dir: "oracle", Allow: append([]string{"std", "github.com/anishathalye/porcupine", "model", "history", "oracle", "plan"}, k8s...),
			TestDeny: []string{"workers", "world", "run", "realkubelet"}},
		// The simulated kubelet: a target. It implements the oracles' View
		// (package oracle) and knows no oracle.
		{Dir: "world", Allow: append([]string{"std", "sim", "workers", "model", "plan", "history", "oracle", "world/simrt",
			"world/fakeruntime", "world/quiet", "world/shapes", "world/kubebugs", "world/catalogue", "world/workerset", "world/slab", "world/lastcall", "world/boxes", "world/probe"}, k8s...),
			Deny: append(oracles, "run", "shrink", "regress", "gate", "cmd", "vkworld"), TestDeny: above("run", "shrink", "regress", "gate")},
		{Dir: "world/simrt", Allow: []string{"std", "sim", "workers"}},
		// The settle phase's early end: pure bookkeeping and predicates over
		// the facts a world offers it (quiet.World); no scheduler, no world.
		// Only the kubelet world uses it; its tests use a fake world.
		{Dir: "world/quiet", Allow: []string{"std", "model", "workers", "k8s.io/apimachinery"},
			TestDeny: above("sim", "plan", "history", "oracle", "world/simrt", "world/fakeruntime", "run"), ImportedOnlyBy: []string{"world"}},
		// The input shapes of a run: the pod workers' update options sorted
		// into dimensions; no world, no scheduler.
		{Dir: "world/shapes", Allow: append([]string{"std", "workers"}, k8s...)},
		// The kubelet world's live worker goroutines, for the drain: no world.
		{Dir: "world/workerset", Allow: []string{"std", "sim", "plan", "history", "world/slab", "k8s.io/apimachinery"}},
		// The kubelet world's last housekeeping call as recorded: no world.
		{Dir: "world/lastcall", Allow: []string{"std", "model", "workers", "k8s.io/apimachinery"}, ImportedOnlyBy: []string{"world"}},
		// The boxes of a kubelet world's events, kept for its lane's later runs: no world.
		{Dir: "world/boxes", Allow: []string{"std", "model", "history", "k8s.io/apimachinery"}, ImportedOnlyBy: []string{"world"}},
		// The kubelet world's probe of the pod workers' queries at each pod-lock
		// release, asked incrementally: no world, no scheduler.
		{Dir: "world/probe", Allow: []string{"std", "model", "plan", "history", "workers", "world/slab", "k8s.io/apimachinery"},
			ImportedOnlyBy: []string{"world"}},
		// The memory a kubelet world keeps for its lane's next run: generic, no podsim.
		{Dir: "world/slab", Allow: []string{"std"}},
		// The kubelet-level bugs' switches: plain data; no world.
		{Dir: "world/kubebugs", Allow: []string{"std"}},
		// The kubelet world's mutant catalogue: data from the two above; no world.
		{Dir: "world/catalogue", Allow: []string{"std", "workers/mutants", "world/kubebugs"}},
		// The kubelet world's fake container runtime: it knows no World (the
		// world observes its calls) and no history.
		{Dir: "world/fakeruntime", Allow: append([]string{"std", "sim", "workers", "model", "plan", "world/slab"}, k8s...),
			TestDeny: above("world", "run", "shrink", "regress", "gate")},
		// The simulated virtual-kubelet pod controller: a target beside the
		// kubelet world, on sim alone (no pod workers).
		{Dir: "vkworld", Allow: append([]string{"std", "sim", "plan", "history", "oracle"}, k8s...),
			Deny: append(oracles, "run", "shrink", "regress", "gate", "cmd", "world", "workers"), TestDeny: above("run", "shrink", "regress", "gate")},
		// The composition root and what is built on it.
		{Dir: "run", Deny: above("shrink", "regress", "gate", "baseline", "workers")},
		{Dir: "shrink", Deny: above("regress", "gate", "baseline", "workers", "world")},
		// The delta-debugging pass over a list of moves the real targets
		// (realkubelet, realvk) shrink their scripts with: generic, no podsim.
		{Dir: "shrink/ddmin", Allow: []string{"std"}},
		// What the real targets' drivers (realkubelet, realvk) share: move
		// scripts, parked-call order, finding classes, the sweep's tally. It
		// knows no target and nothing of kubelet, virtual-kubelet or rapid.
		{Dir: "realdriver", Allow: []string{"std", "plan", "shrink/ddmin"}},
		{Dir: "regress", Deny: above("shrink", "gate", "baseline", "workers", "world")},
		{Dir: "gate", Deny: above("regress", "baseline", "workers")},
		// The coverage-guided corpus loop: on run, beside shrink.
		{Dir: "guided", Deny: above("shrink", "regress", "gate", "baseline", "workers", "world")},
		// The real-goroutine baseline: test files only, the upstream way of
		// testing side by side with the gate.
		{Dir: "baseline", Deny: above()},
		{Dir: "cmd/simrun", Deny: []string{"workers", "model"}},
		// The canonical trace's text, read back and drawn as timelines.
		{Dir: "cmd/simrun/internal/tracetext", Allow: []string{"std", "report"}},
		// Output files checked before any work, and written whole.
		{Dir: "cmd/simrun/internal/outfile", Allow: []string{"std"}},
		// One run's HTML failure report, built by running it again: on run,
		// shrink and the report's plain page; no world, no target.
		{Dir: "cmd/simrun/internal/seedreport", Allow: []string{"std", "report", "run", "shrink", "sim", "oracle/linearize",
			"cmd/simrun/internal/outfile", "cmd/simrun/internal/tracetext"}},
		// The JUnit XML writer: test cases in, a document out; no podsim.
		{Dir: "cmd/simrun/internal/junit", Allow: []string{"std", "cmd/simrun/internal/outfile"}},
		// How far a long command has got, on stderr: a bar or plain lines.
		{Dir: "cmd/simrun/internal/progress", Allow: []string{"std", "golang.org/x/term"}},
		// report renders a failure from a plain struct: the simulator's
		// packages fill it, it knows none of them.
		{Dir: "report", Allow: []string{"std"}},
		{Dir: "internal/depcheck", Allow: []string{"std"}},
		{Dir: "internal/cputime", Allow: []string{"std"}},
		// Parallel work handed on in a fixed order (simrun's sweeps): generic,
		// no podsim.
		{Dir: "internal/lanes", Allow: []string{"std"}},
		// A built command for tests, shared through the Go build cache.
		{Dir: "internal/gobin", Allow: []string{"std"}},
		// The docs' links and anchors (a test only).
		{Dir: "internal/doclinks", Allow: []string{"std"}},
		// The shell scripts' bad-input contract (a test only).
		{Dir: "scripts", Allow: []string{"std"}},
		// The mutation score: the mutator and its guards know nothing of
		// podsim; only the focused sweep runs it, like cmd/simrun.
		{Dir: "internal/mutation", Allow: []string{"std"}},
		{Dir: "internal/mutation/active", Allow: []string{"std"}},
		{Dir: "internal/mutation/mutate", Allow: []string{"std", "internal/mutation", "internal/mutation/active"}},
		{Dir: "internal/mutation/sweep", Allow: []string{"std", "internal/mutation", "plan", "run", "sim", "guided"}},
		{Dir: "scripts/pinresults", Allow: []string{"std"}},
		// deploy/ is a test of the Kubernetes manifest against the API types.
		{Dir: "deploy", Allow: []string{"std", "k8s.io/api", "sigs.k8s.io/yaml", "internal/gobin"}},
	}
}

// Violation is one forbidden import.
type Violation struct {
	File   string // relative to the module root
	Import string
	Why    string
}

func (v Violation) String() string { return fmt.Sprintf("%s imports %q: %s", v.File, v.Import, v.Why) }

// Check walks the module rooted at root and returns every violation, sorted
// by file and import.
func Check(root string, rules []Rule) ([]Violation, error) {
	var out []Violation
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "vendor") {
				return filepath.SkipDir
			}
			// A nested module (realkubelet/) is not part of this module.
			if _, err := os.Stat(filepath.Join(path, "go.mod")); path != root && err == nil {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		vs, err := checkFile(path, filepath.ToSlash(rel), rules)
		out = append(out, vs...)
		return err
	})
	slices.SortFunc(out, func(a, b Violation) int {
		return strings.Compare(a.File+"\x00"+a.Import, b.File+"\x00"+b.Import)
	})
	return out, err
}

func checkFile(path, rel string, rules []Rule) ([]Violation, error) {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
	if err != nil {
		return nil, err
	}
	dir := filepath.ToSlash(filepath.Dir(rel))
	if dir == "." {
		return nil, nil // the module root holds no Go package of its own
	}
	rule, ok := ruleFor(dir, rules)
	if !ok {
		return []Violation{{File: rel, Why: "package " + dir + " is not in the dependency table (internal/depcheck)"}}, nil
	}
	isTest := strings.HasSuffix(rel, "_test.go")
	var out []Violation
	for _, spec := range f.Imports {
		imp, _ := strconv.Unquote(spec.Path.Value)
		if why := rule.verdict(imp, isTest); why != "" {
			out = append(out, Violation{File: rel, Import: imp, Why: why})
		} else if why := importerVerdict(dir, imp, rules); why != "" {
			out = append(out, Violation{File: rel, Import: imp, Why: why})
		}
	}
	return out, nil
}

func ruleFor(dir string, rules []Rule) (Rule, bool) {
	best, found := Rule{}, false
	for _, r := range rules {
		if matches(dir, r.Dir) && (!found || len(r.Dir) > len(best.Dir)) {
			best, found = r, true
		}
	}
	return best, found
}

// verdict returns why imp is forbidden in the rule's package, or "".
func (r Rule) verdict(imp string, isTest bool) string {
	rel, internal := strings.CutPrefix(imp, Module+"/")
	if !internal {
		rel = imp
	}
	if isTest {
		for _, d := range r.TestDeny {
			if internal && matches(rel, d) {
				return r.Dir + " tests must not import " + d
			}
		}
		return ""
	}
	for _, d := range r.Deny {
		if internal && matches(rel, d) {
			return r.Dir + " must not import " + d
		}
	}
	if len(r.Allow) == 0 {
		return ""
	}
	for _, a := range r.Allow {
		if a == "std" && !internal && isStd(imp) {
			return ""
		}
		if a != "std" && matches(rel, a) && (internal == isModuleDir(a)) {
			return ""
		}
	}
	return fmt.Sprintf("%s may import only %s", r.Dir, strings.Join(r.Allow, ", "))
}

// importerVerdict returns why the package in dir may not import imp because
// imp's own rule restricts its importers (ImportedOnlyBy), or "".
func importerVerdict(dir, imp string, rules []Rule) string {
	rel, internal := strings.CutPrefix(imp, Module+"/")
	if !internal {
		return ""
	}
	target, ok := ruleFor(rel, rules)
	if !ok || len(target.ImportedOnlyBy) == 0 || !matches(rel, target.Dir) {
		return ""
	}
	for _, importer := range target.ImportedOnlyBy {
		if matches(dir, importer) {
			return ""
		}
	}
	return fmt.Sprintf("only %s may import %s", strings.Join(target.ImportedOnlyBy, ", "), target.Dir)
}

// isModuleDir tells module-relative rule entries from external paths.
func isModuleDir(entry string) bool { return !strings.Contains(strings.SplitN(entry, "/", 2)[0], ".") }

// isStd reports a standard-library path: its first element has no dot.
func isStd(imp string) bool { return !strings.Contains(strings.SplitN(imp, "/", 2)[0], ".") }

func matches(path, prefix string) bool {
	return path == prefix || strings.HasPrefix(path, prefix+"/")
}
