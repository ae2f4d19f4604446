// Command realrun runs podsim's scenario families against the real kubelet
// pod workers, of the pinned release or of any kubernetes tree, and (--vk)
// against the real virtual-kubelet pod controller, of its pinned version or
// of any virtual-kubelet tree. The runs need testing/synctest, which only
// exists inside a test binary, so realrun checks its arguments, builds the
// realkubelet (or realvk) package's test binary against the tree (tree.go:
// in a scratch slot, never in the tree), runs the kubelet's linkname guard
// with it, and then its tool tests (TestSweep, TestReplaySeed,
// TestShrinkSeed, TestGateSweep).
//
//	realrun run    [--kubernetes DIR|RELEASE] [--scenario NAME|all] [--seeds N] [--start S] [--hold] [--real LIST]
//	               [--strategy random|guided] [--corpus DIR [--rerun-corpus]] [--logind-restart] [--logind-delay]
//	realrun replay [--kubernetes DIR|RELEASE] --scenario NAME (--seed S | --input TOKEN) [--hold] [--real LIST]
//	realrun shrink [--kubernetes DIR|RELEASE] --scenario NAME (--seed S | --input TOKEN) [--class CLASS] [--hold] [--real LIST]
//	realrun gate   --kubernetes DIR|RELEASE [--base v1.36.3|RELEASE|DIR2] [--seeds N] [--start S] [--scenario NAME|all]
//	               [--modes plain,hold] [--deep FAMILY/MODE:SEEDS,...] [--guided N [--corpus DIR]]
//	               [--json] [--out DIR] [--shrink N] [--hang D]
//	realrun gate   --mutants [--mutant ID] [--base v1.36.3|RELEASE|DIR2] [...]
//	realrun mutation [--kubernetes DIR|RELEASE] [--seeds N] [--start S] [--modes plain,hold] [--scenario NAME|all]
//	               [--ids LIST|@FILE] [--files LIST] [--hang D] [--parallel P] [--out DIR] [--json]
//	realrun mutation --vk [--virtual-kubelet DIR|RELEASE] [--seeds N] [--start S] [--scenario NAME|all] [...]
//	realrun mutation [...] --guided N [--corpus DIR]   (each survivor then judged by N guided runs, mutation_guided.go)
//	realrun workfile --kubernetes DIR|RELEASE   (prints the go.work to build against it; make real KUBE_ROOT=DIR|RELEASE)
//	realrun workfile --tags --kubernetes DIR|RELEASE   (prints the -tags flag the tree's API shapes need)
//	realrun workfile --virtual-kubelet DIR   (the same for realvk; make realvk VK_ROOT=DIR)
//	realrun gate   --virtual-kubelet DIR|RELEASE [--base v1.14.1|RELEASE|DIR2] [--seeds N] [...]
//	realrun gate   --vk --mutants [--mutant ID] [...]
//	realrun run|replay|shrink --vk [--virtual-kubelet DIR|RELEASE] [...]
//
// RELEASE names a release instead of a tree: a kubernetes one
// (v1.MINOR.PATCH) is assembled as a checkout from the Go module proxy
// (package scratch); a virtual-kubelet one (vMAJOR.MINOR.PATCH) is the
// module cache's copy of that version.
//
// --vk (implied by --virtual-kubelet DIR) runs the virtual-kubelet pod
// controller instead of the kubelet, through the realvk module, over the
// VK families (target.go); it has one mode, no --hold, --real or --modes.
//
// --hold holds the workers' wake-ups (realkubelet/wakes.go). --real
// (run, replay, shrink) selects the real kubelet components around the pod
// workers: a comma-separated list of status, shutdown, eviction, restart,
// or all (the default), or none;
// switching one off localises a finding. --strategy guided (run) makes
// --seeds runs per family of the coverage-guided corpus loop (package
// guided; loop seed --start) instead of seeds --start on; --corpus DIR
// loads and saves its corpora there (one directory per wake-up mode and
// component set), and --rerun-corpus runs their kept entries first.
// replay and shrink take a guided run's --input token instead of --seed.
// --logind-restart (a kubelet from v1.37) restarts logind under the node
// shutdown manager before its shutdown event; --logind-delay starts
// logind's inhibit delay short of its groups (run, replay, shrink, gate,
// mutation; runmodes.go).
// gate --guided N adds the guided tier (gate_guided.go), started from
// the corpora of --corpus DIR if given.
//
// mutation (mutation.go) is operator mutation of the tree's
// pod_workers.go, or of the files --files names (mutation_files.go): one
// schema build, each mutant a run of it, killed / survived /
// build-refused and the score; survivors do not fail it, an
// interrupt (Ctrl-C) does (exit 1), after writing what was decided. With
// --vk it mutates the virtual-kubelet pod controller instead, judged by
// the realvk module's runs (mutation_target.go).
//
// Exit codes: 0 all passed; 1 a check failed (an unexplained finding, a
// gate regression, a mutant not caught); 2 bad usage or a tree that does
// not fit the adapter, with a one-line message.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/realkubelet/cmd/realrun/scratch"
)

// options are realrun's command line.
type options struct {
	// candArg, baseArg: --kubernetes (or --virtual-kubelet) and --base as
	// given when they named a release (resolveReleases put its tree in
	// their place), for the commands realrun prints.
	candArg, baseArg                                                           string
	command, scenario, seed, class, kubernetes, base, modes, out, mutant, real string
	strategy, corpus, ids, virtualKubelet, files, input                        string
	seeds, shrink, parallel, guided                                            int
	hang                                                                       time.Duration
	start                                                                      uint64
	hold, json, mutants, trimpath, vk, rerun, tags, logind, logindDelay        bool
	deep                                                                       deepList // gate: the deep tiers
}

// errFailed: a check failed (exit 1); the reason is already printed.
var errFailed = errors.New("failed")

// usage is the command summary `realrun help` (or -h, --help) prints.
const usage = `usage:
  realrun run    [--kubernetes DIR|RELEASE] [--scenario NAME|all] [--seeds N] [--start S] [--hold] [--real LIST]
                 [--strategy random|guided] [--corpus DIR [--rerun-corpus]] [--logind-restart] [--logind-delay]
  realrun replay [--kubernetes DIR|RELEASE] --scenario NAME (--seed S | --input TOKEN) [--hold] [--real LIST]
  realrun shrink [--kubernetes DIR|RELEASE] --scenario NAME (--seed S | --input TOKEN) [--class CLASS] [--hold] [--real LIST]
  realrun gate   --kubernetes DIR|RELEASE [--base v1.36.3|RELEASE|DIR2] [--seeds N] [--start S] [--scenario NAME|all]
                 [--modes plain,hold] [--deep FAMILY/MODE:SEEDS,...] [--guided N [--corpus DIR]]
                 [--json] [--out DIR] [--shrink N] [--hang D]
  realrun gate   --mutants [--mutant ID] [--base v1.36.3|RELEASE|DIR2] [...]
  realrun mutation [--kubernetes DIR|RELEASE] [--seeds N] [--start S] [--modes plain,hold] [--scenario NAME|all]
                 [--ids LIST|@FILE] [--files LIST] [--hang D] [--parallel P] [--out DIR] [--json]
  realrun mutation --vk [--virtual-kubelet DIR|RELEASE] [--seeds N] [--start S] [--scenario NAME|all] [...]
  realrun mutation [...] --guided N [--corpus DIR]
  realrun workfile [--tags] --kubernetes DIR|RELEASE | --virtual-kubelet DIR|RELEASE
--logind-restart (kubelets from v1.37), --logind-delay (run, replay, shrink, gate, mutation): logind restarts before each node
shutdown event; logind's inhibit delay starts short of the manager's groups.
RELEASE (v1.MINOR.PATCH, e.g. v1.37.2): that kubernetes release as a checkout, fetched once from the Go module proxy.
the virtual-kubelet pod controller instead of the kubelet (--vk, implied by --virtual-kubelet DIR; its RELEASE: vMAJOR.MINOR.PATCH):
  realrun run|replay|shrink --vk [--virtual-kubelet DIR|RELEASE] [...]
  realrun gate   --virtual-kubelet DIR|RELEASE [--base v1.14.1|RELEASE|DIR2] [--seeds N] [--start S] [--scenario NAME|all]
                 [--deep FAMILY/plain:SEEDS,...] [--guided N [--corpus DIR]] [--json] [--out DIR] [--shrink N]
  realrun gate   --vk --mutants [--mutant ID] [--base v1.14.1|DIR2] [...]
realrun COMMAND -h lists a command's flags. Exit codes: 0 passed, 1 a check failed, 2 bad usage.
`

func main() {
	args := os.Args[1:]
	if len(args) == 1 && slices.Contains([]string{"help", "-h", "-help", "--help"}, args[0]) {
		fmt.Print(usage)
		return
	}
	o, err := parse(args, io.Discard)
	if errors.Is(err, flag.ErrHelp) {
		_, _ = parse(args, os.Stdout) // prints the command's flags
		return
	}
	if err == nil {
		err = execute(o)
	}
	switch {
	case errors.Is(err, errFailed):
		os.Exit(1)
	case err != nil:
		fmt.Fprintf(os.Stderr, "realrun: %v\n", err)
		os.Exit(2)
	}
}

// parse reads the command line, or says what is wrong with it.
func parse(argv []string, usage io.Writer) (options, error) {
	var o options
	if len(argv) == 0 {
		return o, fmt.Errorf("want a command: run, replay, shrink, gate, mutation or workfile")
	}
	o.command = argv[0]
	fs := flag.NewFlagSet("realrun "+argv[0], flag.ContinueOnError)
	fs.SetOutput(usage)
	defineFlags(fs, &o)
	if err := fs.Parse(argv[1:]); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if o.command == "mutation" && !flagSet(fs, "seeds") {
		o.seeds = mutationSeeds
	}
	if o.files != "" && o.command != "mutation" {
		return o, fmt.Errorf("--files is for mutation only")
	}
	if err := checkVK(&o, fs); err != nil {
		return o, err
	}
	if names := scenarioNames(o); o.scenario != "all" && !slices.Contains(names, o.scenario) {
		return o, fmt.Errorf("unknown scenario %q (want one of %s)", o.scenario, strings.Join(names, ", "))
	}
	if o.kubernetes != "" && !scratch.IsRelease(o.kubernetes) {
		if err := scratch.CheckTree("kubernetes", o.kubernetes); err != nil {
			return o, err
		}
	}
	if err := absPaths(&o); err != nil {
		return o, err
	}
	if err := checkOnly(o, fs); err != nil {
		return o, err
	}
	if err := checkLogind(o); err != nil {
		return o, err
	}
	switch o.command {
	case "gate":
		return o, checkGate(o)
	case "mutation":
		return o, checkMutation(o)
	case "workfile":
		if o.kubernetes == "" && o.virtualKubelet == "" {
			return o, fmt.Errorf("workfile needs --kubernetes DIR|RELEASE or --virtual-kubelet DIR")
		}
		return o, nil
	}
	_, err := toolArgs(o)
	return o, err
}

// mutationSeeds is realrun mutation's default budget: seeds per family and
// mode (17 families × 20 seeds × 2 modes = 680 runs for a survivor).
const mutationSeeds = 20

func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// pinned names the release realkubelet/go.mod pins.
const pinned = "v1.36.3"

func checkGate(o options) error {
	if o.seeds <= 0 {
		return fmt.Errorf("--seeds must be positive, got %d", o.seeds)
	}
	if o.hang < 0 {
		return fmt.Errorf("--hang must not be negative, got %s (0: no bound)", o.hang)
	}
	switch {
	case o.vk && o.mutants == (o.virtualKubelet != ""):
		return fmt.Errorf("gate --vk needs exactly one of --virtual-kubelet DIR (the candidate tree) and --mutants")
	case o.mutants == (o.kubernetes != "") && !o.vk:
		return fmt.Errorf("gate needs exactly one of --kubernetes DIR, --virtual-kubelet DIR and --mutants")
	case o.mutant != "" && !o.mutants:
		return fmt.Errorf("--mutant needs --mutants")
	case o.vk: // checkVK checked the trees
	case o.base != pinned && !scratch.IsRelease(o.base):
		if err := scratch.CheckTree("base", o.base); err != nil {
			return fmt.Errorf("%v (want %s, the pinned release, another release v1.MINOR.PATCH, or a kubernetes tree)", err, pinned)
		}
	}
	for _, m := range strings.Split(o.modes, ",") {
		if m != "plain" && m != "hold" {
			return fmt.Errorf("--modes: unknown mode %q (want plain, hold or plain,hold)", m)
		}
	}
	if o.shrink < 0 {
		return fmt.Errorf("--shrink must not be negative, got %d", o.shrink)
	}
	if err := checkGuided(o); err != nil {
		return err
	}
	return checkDeep(o)
}

// toolArgs is the test binary's command line for run, replay and shrink.
func toolArgs(o options) ([]string, error) {
	var out []string
	switch o.command {
	case "run":
		if o.seeds <= 0 {
			return nil, fmt.Errorf("--seeds must be positive, got %d", o.seeds)
		}
		out = []string{"-test.run", "^TestSweep$", "-test.v", "-sweep", strconv.Itoa(o.seeds),
			"-sweep.start", strconv.FormatUint(o.start, 10)}
		if o.scenario != "all" {
			out = append(out, "-sweep.family", o.scenario)
		}
		strategy, err := strategyArgs(o)
		if err != nil {
			return nil, err
		}
		out = append(out, strategy...)
	case "replay", "shrink":
		if o.scenario == "all" {
			return nil, fmt.Errorf("%s needs --scenario NAME", o.command)
		}
		run, err := runArgs(o)
		if err != nil {
			return nil, err
		}
		if o.command == "replay" {
			out = append([]string{"-test.run", "^TestReplaySeed$", "-test.v", "-replay", "-shrink.family", o.scenario}, run...)
		} else {
			out = append([]string{"-test.run", "^TestShrinkSeed$", "-test.v", "-shrink.family", o.scenario}, run...)
			out = append(out, "-shrink.class", o.class)
		}
	default:
		return nil, fmt.Errorf("unknown command %q (want run, replay, shrink, gate, mutation or workfile)", o.command)
	}
	mode, err := modeArgs(o)
	return append(out, mode...), err
}

// strategyArgs are the test binary's flags for run's --strategy and
// --corpus (an absolute path: the binary runs in the module's directory).
func strategyArgs(o options) ([]string, error) {
	switch {
	case o.strategy != "random" && o.strategy != "guided":
		return nil, fmt.Errorf("--strategy: unknown strategy %q (want random or guided)", o.strategy)
	case o.corpus != "" && o.strategy != "guided":
		return nil, fmt.Errorf("--corpus needs --strategy guided")
	case o.rerun && o.corpus == "":
		return nil, fmt.Errorf("--rerun-corpus needs --strategy guided --corpus DIR (the corpora to run again)")
	case o.strategy == "random":
		return nil, nil
	case o.corpus == "":
		return []string{"-sweep.strategy", "guided"}, nil
	case o.rerun:
		return []string{"-sweep.strategy", "guided", "-sweep.corpus", o.corpus, "-sweep.rerun"}, nil
	}
	return []string{"-sweep.strategy", "guided", "-sweep.corpus", o.corpus}, nil
}

// execute runs a parsed command.
func execute(o options) error {
	moduleDir, err := moduleDir()
	if err != nil {
		return err
	}
	root, err := scratch.Root()
	if err != nil {
		return err
	}
	if err := resolveReleases(&o, root, scratch.GoDownload); err != nil {
		return err
	}
	if err := checkLogindTrees(o); err != nil {
		return err
	}
	switch o.command {
	case "gate":
		return runGate(o, moduleDir, root)
	case "mutation":
		return runMutation(o, moduleDir, root)
	}
	tg, err := targetOf(o, moduleDir)
	if err != nil {
		return err
	}
	if o.command == "workfile" && o.tags {
		fmt.Println(tg.tagFlag())
		return nil
	}
	if o.command == "workfile" {
		s, err := tg.prepare(root, "candidate", tg.user)
		if err == nil {
			fmt.Println(s.GoWork)
		}
		return err
	}
	s, err := tg.prepare(root, slotName(tg.user), tg.user)
	if err != nil {
		return err
	}
	bin, err := tg.ready(s, o.trimpath)
	if err != nil {
		return err
	}
	args, _ := toolArgs(o)
	cmd := exec.Command(bin, append(args, "-test.timeout", "0")...)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = tg.moduleDir, s.GoEnv(), os.Stdout, os.Stderr
	if cmd.Run() != nil {
		return errFailed
	}
	return nil
}

func slotName(tree string) string {
	if tree == "" {
		return "pinned"
	}
	return "candidate"
}

func familyNames() []string { return namesOf(plan.KubeletFamilies()) }

// moduleDir is the realkubelet module's directory (where the tool tests
// live), from the go command's view of the current module.
func moduleDir() (string, error) {
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/podsim/podsim/realkubelet")
	cmd.Env = append(os.Environ(), "GOWORK=off")
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("cannot find the realkubelet module (run realrun from inside it): %v", err)
	}
	return strings.TrimSpace(string(out)), nil
}
