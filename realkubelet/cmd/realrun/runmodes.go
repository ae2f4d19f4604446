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

// checkLogind refuses --logind-restart where no node shutdown manager
// runs: the virtual-kubelet, or --real without the shutdown component.
func checkLogind(o options) error {
	switch {
	case !o.logind:
		return nil
	case o.vk:
		return fmt.Errorf("--logind-restart restarts logind under the kubelet's node shutdown manager: the virtual-kubelet runs have none")
	case o.real != "all" && !slices.Contains(strings.Split(o.real, ","), "shutdown"):
		return fmt.Errorf("--logind-restart needs the node shutdown manager: --real %s leaves out shutdown", o.real)
	}
	return nil
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
// manager of a kubelet that could run --logind-restart without it: its
// reconnect path's mutants will survive for want of a run that reaches
// them. "" otherwise.
func logindHint(o options, files, tags []string) string {
	if o.logind || o.vk || !slices.Contains(files, shutdownFile) || !slices.Contains(tags, logindTag) {
		return ""
	}
	return "note: without --logind-restart no run reaches the node shutdown manager's reconnect path " +
		"(Start's loop, the failed start's clean-up, the close of a replaced connection): its mutants survive for want of a run"
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
	if o.logind {
		out = append(out, "-sweep.logind")
	}
	return out, nil
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
