package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/podsim/podsim/realkubelet/cmd/realrun/toolrun"
)

// A regression's way back: the command that replays its run, and its
// run shrunk on the candidate to a minimal script.

// reproduce is the command that replays a run on a tree of the target
// (vk: the virtual-kubelet's; "" the pin).
func reproduce(vk bool, tree string, c change, faults string) string {
	s := "realrun replay"
	switch {
	case vk && tree != "":
		s += " --virtual-kubelet " + tree
	case vk:
		s += " --vk"
	case tree != "":
		s += " --kubernetes " + tree
	}
	if c.Input != "" {
		s += fmt.Sprintf(" --scenario %s --input %s", c.Family, c.Input)
	} else {
		s += fmt.Sprintf(" --scenario %s --seed %d", c.Family, c.Seed)
	}
	if c.Mode == "hold" {
		s += " --hold"
	}
	return s + faults
}

// shrinkChanges shrinks up to limit regressions, the first of each
// distinct key first, on the candidate, writing each script to outDir.
// A key's second word is the kubelet's invariant or the virtual-kubelet's
// check.
func shrinkChanges(regs []change, limit int, sd side, tg target, outDir string) {
	var order []int
	seen := map[string]bool{}
	for i, c := range regs {
		if !seen[c.Key] {
			seen[c.Key] = true
			order = append(order, i)
		}
	}
	for i := range regs {
		if !slices.Contains(order, i) {
			order = append(order, i)
		}
	}
	for _, i := range order[:min(limit, len(order))] {
		c := &regs[i]
		class, inv, _ := strings.Cut(c.Key, " ")
		if class == "UNEXPLAINED" {
			class = ""
		}
		args := []string{"-test.run", "^TestShrinkSeed$", "-test.timeout", "0", "-shrink.family", c.Family,
			"-shrink.class", class, tg.keyFlag(), inv}
		run := strconv.FormatUint(c.Seed, 10)
		if c.Input != "" {
			args, run = append(args, "-shrink.input", c.Input), "run"+run
		} else {
			args = append(args, "-shrink.seed", run)
		}
		if c.Mode == "hold" {
			args = append(args, "-sweep.hold")
		}
		args = append(args, tg.faults...)
		cmd := exec.Command(sd.bin, args...)
		cmd.Dir, cmd.Env = tg.moduleDir, sd.slot.GoEnv()
		out, err := cmd.Output()
		if err != nil {
			c.Script = "(shrinking failed: " + toolrun.FirstLines(out, 1) + ")"
			continue
		}
		c.Script = strings.TrimSuffix(strings.TrimSpace(string(out)), "PASS")
		c.File = filepath.Join(outDir, fmt.Sprintf("%s-%s-%s-%s.script", c.Family, run, c.Mode, strings.ReplaceAll(c.Key, " ", "-")))
		if err := os.WriteFile(c.File, []byte(c.Script), 0o644); err != nil {
			c.File = ""
		}
	}
}
