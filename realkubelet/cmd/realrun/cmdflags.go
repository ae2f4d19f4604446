package main

import (
	"cmp"
	"flag"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/podsim/podsim/guided"
	"github.com/podsim/podsim/realkubelet/cmd/realrun/scratch"
)

// defineFlags defines realrun's flags on fs, into o.
func defineFlags(fs *flag.FlagSet, o *options) {
	fs.StringVar(&o.scenario, "scenario", "all", "scenario family, or all (run, gate)")
	fs.IntVar(&o.seeds, "seeds", 100, "seeds per family (run, gate; mutation: default 20)")
	fs.Uint64Var(&o.start, "start", 1, "first seed (run, gate)")
	fs.StringVar(&o.seed, "seed", "", "the seed (replay, shrink)")
	fs.StringVar(&o.class, "class", "", "finding class to keep while shrinking (\"\" = unexplained)")
	fs.StringVar(&o.real, "real", "all", "run, replay, shrink: the real kubelet components around the pod workers, comma-separated (status, shutdown, eviction, restart), all or none")
	fs.BoolVar(&o.hold, "hold", false, "hold the workers' wake-ups (realkubelet/wakes.go)")
	fs.StringVar(&o.strategy, "strategy", "random", "run: random (seeds --start on) or guided (the coverage-guided corpus loop, loop seed --start)")
	fs.StringVar(&o.corpus, "corpus", "", "run --strategy guided: load and save the corpora under this directory; "+
		"gate and mutation --guided: start the guided tier from these corpora (grown on the base by run; copied, never written)")
	fs.BoolVar(&o.rerun, "rerun-corpus", false, "run --strategy guided --corpus: first run again every entry the corpora keep, "+
		"the rarest coverage's owners first (for corpora grown on other code); --seeds counts them")
	fs.StringVar(&o.input, "input", "", "replay, shrink: a guided run's input token (as a sweep or the gate prints it) instead of --seed")
	fs.IntVar(&o.guided, "guided", 0, "gate: the guided tier, this many runs per family and mode of the coverage-guided loop "+
		"(loop seed --start) on the candidate, each run with findings run again on the base (0: none); "+
		"mutation: the same for each survivor, the mutant on, then off")
	fs.StringVar(&o.kubernetes, "kubernetes", "", "a kubernetes tree (checkout or module-shaped), or a release v1.MINOR.PATCH (fetched from the Go module proxy); default: the pinned release")
	fs.StringVar(&o.base, "base", pinned, "gate: the base, the pinned release, another release v1.MINOR.PATCH or a kubernetes tree "+
		"(with --vk: "+vkPinned+", the pinned module, by default, or a virtual-kubelet tree)")
	fs.StringVar(&o.modes, "modes", "plain,hold", "gate, mutation: wake-up modes (plain, hold)")
	fs.BoolVar(&o.json, "json", false, "gate, mutation: print JSON instead of a table")
	fs.StringVar(&o.out, "out", "", "gate, mutation: directory for the report (and the gate's shrunk scripts; default: in the scratch slot)")
	fs.Var(&o.deep, "deep", "gate: also sweep FAMILY in MODE (plain or hold) to SEEDS seeds from --start, "+
		"e.g. swarm-restart/hold:10000; comma-separated or repeated")
	fs.IntVar(&o.shrink, "shrink", 5, "gate: shrink at most this many regressions")
	fs.BoolVar(&o.mutants, "mutants", false, "gate: run the catalogue of mutants (realkubelet/testdata/mutants; with --vk realvk/testdata/mutants) against the base")
	fs.StringVar(&o.mutant, "mutant", "", "gate --mutants: only this mutant (file name without .diff)")
	fs.StringVar(&o.ids, "ids", "", "mutation: only these mutants: numbers, ranges and keys (3,10-20,k18f045ef84) or @FILE")
	fs.DurationVar(&o.hang, "hang", 30*time.Second, "gate, mutation: a run that does not end within this is a hang: "+
		"the mutant is killed (mutation), the sweep stops with the run named (gate; 0: no bound)")
	fs.IntVar(&o.parallel, "parallel", 1, "mutation: mutants at once")
	fs.BoolVar(&o.vk, "vk", false, "run the virtual-kubelet pod controller (realvk, the VK families) instead of the kubelet; "+
		"mutation: mutate node/pod.go and node/podcontroller.go")
	fs.StringVar(&o.virtualKubelet, "virtual-kubelet", "", "a virtual-kubelet tree or release vMAJOR.MINOR.PATCH (implies --vk; gate: the candidate); default: the module realvk/go.mod pins")
	fs.StringVar(&o.files, "files", "", "mutation: the files to mutate, comma-separated, relative to the tree "+
		"(default pkg/kubelet/pod_workers.go; with --vk node/pod.go,node/podcontroller.go)")
	fs.BoolVar(&o.tags, "tags", false, "workfile: print the go command's -tags flag the tree needs (the API shapes it has; "+
		"an empty line if none) instead of the go.work")
	fs.BoolVar(&o.logind, "logind-restart", false, "run, replay, shrink, gate, mutation: restart logind under the node shutdown manager before each shutdown event, "+
		"the manager reconnecting by its own Start, and judge its D-Bus connections (P7; a kubelet from v1.37)")
	fs.BoolVar(&o.logindDelay, "logind-delay", false, "run, replay, shrink, gate, mutation: start logind's inhibit delay short of the node shutdown manager's groups, "+
		"so that it overrides it and polls until logind applies it, and judge the delay when it starts watching (P7; any kubelet)")
	fs.BoolVar(&o.trimpath, "trimpath", false, "build with -trimpath (cache independent of the scratch path; one full rebuild)")
}

// commandsOf are the commands a flag is for, where it is not for all: one
// given to another command is refused rather than ignored.
var commandsOf = map[string][]string{
	"input":          {"replay", "shrink"},
	"guided":         {"gate", "mutation"},
	"rerun-corpus":   {"run"},
	"strategy":       {"run"},
	"corpus":         {"run", "gate", "mutation"},
	"hang":           {"gate", "mutation"},
	"tags":           {"workfile"},
	"logind-restart": {"run", "replay", "shrink", "gate", "mutation"},
	"logind-delay":   {"run", "replay", "shrink", "gate", "mutation"},
}

// checkOnly refuses a flag of fs given to a command it is not for.
func checkOnly(o options, fs *flag.FlagSet) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		if cmds, ok := commandsOf[f.Name]; ok && !slices.Contains(cmds, o.command) && err == nil {
			err = fmt.Errorf("--%s is not a flag of %s (it is for %s)", f.Name, o.command, orList(cmds))
		}
	})
	return err
}

func orList(xs []string) string {
	if len(xs) == 1 {
		return xs[0]
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " and " + xs[len(xs)-1]
}

// absPaths makes --out and --corpus absolute: the test binary runs in the
// module's directory, realrun wherever it was started.
func absPaths(o *options) error {
	for _, p := range []*string{&o.out, &o.corpus} {
		if *p == "" {
			continue
		}
		abs, err := filepath.Abs(*p)
		if err != nil {
			return err
		}
		*p = abs
	}
	return nil
}

// runArgs are the test binary's flags naming replay's or shrink's run: a
// seed, or a guided run's input token (checked here, so a token cut short
// by the shell is one line and exit 2).
func runArgs(o options) ([]string, error) {
	switch {
	case o.input != "" && o.seed != "":
		return nil, fmt.Errorf("%s takes --seed or --input, not both", o.command)
	case o.input != "":
		if _, err := guided.ParseToken(o.input); err != nil {
			return nil, fmt.Errorf("--input: %v", err)
		}
		return []string{"-shrink.input", o.input}, nil
	}
	if _, err := strconv.ParseUint(o.seed, 10, 64); err != nil {
		return nil, fmt.Errorf("%s needs --seed N (a non-negative integer) or --input TOKEN, got --seed %q", o.command, o.seed)
	}
	return []string{"-shrink.seed", o.seed}, nil
}

// resolveReleases replaces a release named by --kubernetes,
// --virtual-kubelet or --base (but --base's default, the pin, which builds
// against its module's go.mod) with its tree: a kubernetes release
// assembled as a checkout (package scratch, release.go), a virtual-kubelet
// release the module cache's copy of the module.
func resolveReleases(o *options, root string, fetch scratch.FetchFunc) error {
	cand, pin, isRelease, tree := &o.kubernetes, pinned, scratch.IsRelease, func(v string) (string, error) {
		return scratch.ReleaseTree(root, v, fetch, progress)
	}
	if o.vk {
		cand, pin, isRelease, tree = &o.virtualKubelet, vkPinned, scratch.IsModuleRelease, func(v string) (string, error) {
			return scratch.ModuleRelease(vkModule, v, fetch)
		}
	}
	for _, p := range []struct{ flag, arg *string }{{cand, &o.candArg}, {&o.base, &o.baseArg}} {
		if !isRelease(*p.flag) || (p.flag == &o.base && *p.flag == pin) {
			continue
		}
		dir, err := tree(*p.flag)
		if err != nil {
			return err
		}
		*p.arg, *p.flag = *p.flag, dir
	}
	return nil
}

// candidateArg is the candidate tree as printed commands name it: the
// release the user named, or the tree.
func (o options) candidateArg() string { return cmp.Or(o.candArg, o.kubernetes, o.virtualKubelet) }
