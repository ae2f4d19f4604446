package main

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/podsim/podsim/realkubelet/cmd/realrun/scratch"
)

// The run modes: --hold, --real and --logind-restart.
//
// --logind-restart: logind restarts under the node shutdown manager before
// each shutdown event, and the manager reconnects by its own Start
// (realkubelet/shutdown/restart.go; RunOptions.LogindRestart). It needs a
// kubelet whose Start's reconnect loop ends with its context (v1.37 and
// later), built with the tag podsim_shutdownctx.

// logindTag is the build tag of a tree whose Start ends with its context.
const logindTag = "podsim_shutdownctx"

// checkLogind refuses --logind-restart and --logind-delay where no node
// shutdown manager runs: the virtual-kubelet, or --real without the
// shutdown component.
func checkLogind(o options) error {
	flag := "--logind-restart"
	if !o.logind {
		flag = "--logind-delay"
	}
	switch {
	case !o.logind && !o.logindDelay:
		return nil
	case o.vk:
		return fmt.Errorf("%s changes logind under the kubelet's node shutdown manager: the virtual-kubelet runs have none", flag)
	case o.real != "all" && !slices.Contains(strings.Split(o.real, ","), "shutdown"):
		return fmt.Errorf("%s needs the node shutdown manager: --real %s leaves out shutdown", flag, o.real)
	}
	return nil
}

// faultTestFlags are the test binary's flags for the logind faults.
func (o options) faultTestFlags() []string {
	var out []string
	if o.logind {
		out = append(out, "-sweep.logind")
	}
	if o.logindDelay {
		out = append(out, "-sweep.logind-delay")
	}
	return out
}

// faultFlags are realrun's flags for them, as the commands it prints
// name them (" --logind-restart --logind-delay", "" for none).
func (o options) faultFlags() string {
	s := ""
	if o.logind {
		s += " --logind-restart"
	}
	if o.logindDelay {
		s += " --logind-delay"
	}
	return s
}

// checkLogindTrees refuses --logind-restart on a kubelet whose Start
// reconnects forever (the pin, v1.36): a bubble running it could never
// end. It checks the trees the command runs, after resolveReleases: the
// candidate (--kubernetes, "" for the pin) and, for gate, the base.
func checkLogindTrees(o options) error {
	if !o.logind {
		return nil
	}
	if o.command == "gate" {
		base := o.base
		if base == pinned {
			base = ""
		}
		if err := checkLogindTree(o, base, "--base", o.baseArg); err != nil || o.mutants {
			return err
		}
	}
	return checkLogindTree(o, o.kubernetes, "--kubernetes", o.candArg)
}

// checkLogindTree checks one tree ("" for the pin), which flag names
// (release: as the user named it, if a release).
func checkLogindTree(o options, tree, flag, release string) error {
	if tree == "" {
		return fmt.Errorf("--logind-restart needs a kubelet from v1.37, whose node shutdown manager's reconnect loop ends with its context; "+
			"the pinned release %s reconnects forever: give %s v1.37.2 (or a later release, or a tree)", pinned, flag)
	}
	if tags, _ := scratch.TreeTags(tree); !slices.Contains(tags, logindTag) {
		return fmt.Errorf("--logind-restart needs a kubelet whose node shutdown manager's Start waits on its context's Done "+
			"(v1.37 and later); that of %s (%s) does not (pkg/kubelet/nodeshutdown/nodeshutdown_manager_linux.go)", cmp.Or(release, tree), flag)
	}
	return nil
}

// shutdownFile is the node shutdown manager's file, whose reconnect path
// only --logind-restart drives.
const shutdownFile = "pkg/kubelet/nodeshutdown/nodeshutdown_manager_linux.go"

// logindHint is realrun mutation's note when it mutates the node shutdown
// manager without the logind faults the kubelet could run: the paths only
// they reach keep their mutants alive for want of a run. "" otherwise.
func logindHint(o options, files, tags []string) string {
	if o.vk || !slices.Contains(files, shutdownFile) {
		return ""
	}
	var out []string
	if !o.logind && slices.Contains(tags, logindTag) {
		out = append(out, "without --logind-restart no run reaches the node shutdown manager's reconnect path "+
			"(Start's loop, the failed start's clean-up, the close of a replaced connection)")
	}
	if !o.logindDelay {
		out = append(out, "without --logind-delay no run reaches its inhibit-delay override (OverrideInhibitDelay, the reload, the poll)")
	}
	if len(out) == 0 {
		return ""
	}
	return "note: " + strings.Join(out, "; ") + ": their mutants survive for want of a run"
}

// modeArgs are the test binary's flags for --hold, --real and
// --logind-restart.
func modeArgs(o options) ([]string, error) {
	var out []string
	if o.hold {
		out = append(out, "-sweep.hold")
	}
	if o.real != "all" {
		if err := checkComponents(o.real); err != nil {
			return nil, err
		}
		out = append(out, "-sweep.real", o.real)
	}
	return append(out, o.faultTestFlags()...), nil
}

// components are the names --real accepts (components.All;
// realrun does not import the package, which would build the kubelet).
var components = []string{"status", "shutdown", "eviction", "restart"}

// checkComponents refuses a --real value the test binary would refuse.
func checkComponents(v string) error {
	if v == "none" {
		return nil
	}
	for _, c := range strings.Split(v, ",") {
		if !slices.Contains(components, c) {
			return fmt.Errorf("--real: unknown component %q (want a comma-separated list of %s, or all, or none)", c, strings.Join(components, ", "))
		}
	}
	return nil
}
