// Command realrun runs podsim's scenario families against the real kubelet
// pod workers. The runs need testing/synctest, which only exists inside a
// test binary, so realrun checks its arguments and then runs the
// realkubelet package's tool tests (TestSweep, TestReplaySeed,
// TestShrinkSeed) with `go test` in the module directory.
//
//	realrun run    [--scenario NAME|all] [--seeds N] [--start S] [--hold]
//	realrun replay --scenario NAME --seed S [--hold]
//	realrun shrink --scenario NAME --seed S [--class CLASS] [--hold]
//
// --hold holds the workers' wake-ups (realkubelet/wakes.go).
//
// Exit codes: 0 all passed; 1 a check failed (or an unexplained finding);
// 2 bad usage, with a one-line message.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"

	"github.com/podsim/podsim/plan"
)

func main() {
	args, err := testArgs(os.Args[1:], io.Discard)
	if err != nil {
		fmt.Fprintf(os.Stderr, "realrun: %v\n", err)
		os.Exit(2)
	}
	dir, err := moduleDir()
	if err != nil {
		fmt.Fprintf(os.Stderr, "realrun: %v\n", err)
		os.Exit(2)
	}
	cmd := exec.Command("go", append([]string{"test", "-count=1", "-timeout", "0"}, args...)...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		os.Exit(1)
	}
}

// testArgs turns realrun's command line into `go test` arguments, or says
// what is wrong with it.
func testArgs(argv []string, usage io.Writer) ([]string, error) {
	if len(argv) == 0 {
		return nil, fmt.Errorf("want a command: run, replay or shrink")
	}
	fs := flag.NewFlagSet("realrun "+argv[0], flag.ContinueOnError)
	fs.SetOutput(usage)
	scenario := fs.String("scenario", "all", "scenario family, or all (run only)")
	seeds := fs.Int("seeds", 100, "seeds per family (run)")
	start := fs.Uint64("start", 1, "first seed (run)")
	seed := fs.String("seed", "", "the seed (replay, shrink)")
	class := fs.String("class", "", "finding class to keep while shrinking (\"\" = unexplained)")
	hold := fs.Bool("hold", false, "hold the workers' wake-ups (realkubelet/wakes.go)")
	if err := fs.Parse(argv[1:]); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	names := familyNames()
	if *scenario != "all" && !slices.Contains(names, *scenario) {
		return nil, fmt.Errorf("unknown scenario %q (want one of %s)", *scenario, strings.Join(names, ", "))
	}
	out, err := commandArgs(argv[0], *scenario, *seeds, *start, *seed, *class)
	if err == nil && *hold {
		out = append(out, "-sweep.hold")
	}
	return out, err
}

// commandArgs is the go test command line of one realrun command.
func commandArgs(command, scenario string, seeds int, start uint64, seed, class string) ([]string, error) {
	switch command {
	case "run":
		if seeds <= 0 {
			return nil, fmt.Errorf("--seeds must be positive, got %d", seeds)
		}
		out := []string{"-run", "^TestSweep$", "-v", ".", "-args", "-sweep", strconv.Itoa(seeds),
			"-sweep.start", strconv.FormatUint(start, 10)}
		if scenario != "all" {
			out = append(out, "-sweep.family", scenario)
		}
		return out, nil
	case "replay", "shrink":
		if scenario == "all" {
			return nil, fmt.Errorf("%s needs --scenario NAME", command)
		}
		if _, err := strconv.ParseUint(seed, 10, 64); err != nil {
			return nil, fmt.Errorf("%s needs --seed N (a non-negative integer), got %q", command, seed)
		}
		if command == "replay" {
			return []string{"-run", "^TestReplaySeed$", "-v", ".", "-args", "-replay",
				"-shrink.family", scenario, "-shrink.seed", seed}, nil
		}
		return []string{"-run", "^TestShrinkSeed$", "-v", ".", "-args",
			"-shrink.family", scenario, "-shrink.seed", seed, "-shrink.class", class}, nil
	}
	return nil, fmt.Errorf("unknown command %q (want run, replay or shrink)", command)
}

func familyNames() []string {
	var out []string
	for _, f := range plan.KubeletFamilies() {
		out = append(out, f.Name)
	}
	return out
}

// moduleDir is the realkubelet module's directory (where the tool tests
// live), from the go command's view of the current module.
func moduleDir() (string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/podsim/podsim/realkubelet").Output()
	if err != nil {
		return "", fmt.Errorf("cannot find the realkubelet module (run realrun from inside it): %v", err)
	}
	return strings.TrimSpace(string(out)), nil
}
