package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/podsim/podsim/plan"
)

func TestGateCommand(t *testing.T) {
	args := []string{"gate", "--seeds", "40", "--start-seeds", "2", "--correct-seeds", "2", "--no-timing",
		"--mutant", "B1", "--mutant", "B7", "--parallel", "2"}
	out, errOut, code := simrun(t, nil, args...)
	if code != 0 || !strings.Contains(out, "gate passed: 2 mutants caught") {
		t.Fatalf("got exit %d, want 0 and a pass\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	for _, want := range []string{"mutant  kind", "B1 ", "B7 ", "yes", "story (shrunk, from)",
		"simrun replay --scenario kill-during-create --seed 0 --strategy random --mutant B1", "correct code: " + fmt.Sprint(2*2*len(plan.Families())) + " runs"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	// Two correct-code seeds are fewer than any family's minimum: the
	// unreached marks are warnings, one line per family, and nothing else.
	for _, line := range strings.Split(strings.TrimSuffix(errOut, "\n"), "\n") {
		if strings.Contains(out, "wall") || line != "" && !strings.HasPrefix(line, "warning: ") {
			t.Errorf("--no-timing: got a timing column or stderr %q:\n%s", errOut, out)
			break
		}
	}
	if !strings.Contains(errOut, "warning: grace-shortening: mark(s) killnow-timed-out unreached in 2 seeds") {
		t.Errorf("stderr lacks the warning of grace-shortening's rare mark: %q", errOut)
	}
	again, _, _ := simrun(t, nil, append(args[:len(args)-1], "1")...)
	if again != out {
		t.Errorf("--parallel 1 output differs from --parallel 2:\n%s\nvs\n%s", again, out)
	}
}

// TestGateSurvivorFails: with a budget that ends before B3's first failing
// seed, B3 survives and the gate exits 1.
func TestGateSurvivorFails(t *testing.T) {
	out, _, code := simrun(t, nil, "gate", "--mutant", "B3", "--seeds", "1", "--start-seeds", "1", "--correct-seeds", "0", "--no-timing")
	if code != 1 || !strings.Contains(out, "NO") || !strings.Contains(out, "GATE FAILED: 1 mutant(s) survived") {
		t.Fatalf("got exit %d, want 1 with B3 surviving:\n%s", code, out)
	}
}

func TestMutantFlags(t *testing.T) {
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"gate", "--seeds", "0"}, 2, "--seeds 0"},
		{[]string{"gate", "--start-seeds", "0"}, 2, "--start-seeds 0"},
		{[]string{"gate", "--mutant", "B99"}, 2, `unknown mutant "B99"`},
		{[]string{"run", "--seeds", "5", "--mutant", "B99"}, 2, `unknown mutant "B99"`},
		{[]string{"replay", "--scenario", "swarm", "--seed", "1", "--mutant", "nope"}, 2, `unknown mutant "nope"`},
		{[]string{"replay", "--scenario", "kill-during-create", "--seed", "0", "--mutant", "B1"}, 1, "safety S4"},
		{[]string{"replay", "--scenario", "kill-during-create", "--seed", "0"}, 0, "ok"},
		{[]string{"run", "--scenario", "kill-during-create", "--seeds", "3", "--mutant", "B16"}, 1, "kill-latency"},
		{[]string{"list"}, 0, "B16  fault"},
		{[]string{"list"}, 0, "V2   K     virtual-kubelet #867, #907"},
		{[]string{"list"}, 0, "vk-delete-recreate"},
		{[]string{"list"}, 0, "vk/V10 VK"},
		{[]string{"replay", "--scenario", "vk-delete-recreate", "--seed", "0", "--mutant", "vk/V2"}, 1, "vk VK3"},
		{[]string{"replay", "--scenario", "vk-delete-recreate", "--seed", "0"}, 0, "ok"},
		{[]string{"run", "--scenario", "vk-startup", "--seeds", "5", "--mutant", "B1"}, 2, "does not apply"},
	}
	for _, c := range cases {
		out, errOut, code := simrun(t, nil, c.args...)
		if code != c.code || !strings.Contains(out+errOut, c.want) {
			t.Errorf("%v: got exit %d, want %d with %q\nstdout: %s\nstderr: %s", c.args, code, c.code, c.want, out, errOut)
		}
		if c.code == 2 && (out != "" || strings.Count(errOut, "\n") != 1) {
			t.Errorf("%v: bad usage must print one line on stderr and nothing else; got %q / %q", c.args, out, errOut)
		}
	}
}
