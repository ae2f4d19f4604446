package main

import (
	"io"
	"strings"
	"testing"
)

// TestArgs: good command lines become the right go test arguments; bad
// ones are refused with a message (exit 2 in main), never run.
func TestArgs(t *testing.T) {
	good := map[string]string{
		"run":                               "-run ^TestSweep$ -v . -args -sweep 100 -sweep.start 1",
		"run --scenario swarm --seeds 5":    "-run ^TestSweep$ -v . -args -sweep 5 -sweep.start 1 -sweep.family swarm",
		"replay --scenario swarm --seed 16": "-run ^TestReplaySeed$ -v . -args -replay -shrink.family swarm -shrink.seed 16",
		"replay --scenario orphan-runtime-pods --seed 56 --hold": "-run ^TestReplaySeed$ -v . -args -replay -shrink.family orphan-runtime-pods -shrink.seed 56 -sweep.hold",
		"shrink --scenario swarm --seed 16 --class GB":           "-run ^TestShrinkSeed$ -v . -args -shrink.family swarm -shrink.seed 16 -shrink.class GB",
	}
	for line, want := range good {
		got, err := testArgs(strings.Fields(line), io.Discard)
		if err != nil || strings.Join(got, " ") != want {
			t.Errorf("%q: got %q, %v; want %q", line, got, err, want)
		}
	}
	bad := map[string]string{
		"":                                  "want a command",
		"explode":                           "unknown command",
		"run --scenario nope":               "unknown scenario",
		"run --seeds 0":                     "must be positive",
		"run --seeds x":                     "invalid value",
		"replay --seed 3":                   "needs --scenario",
		"replay --scenario swarm":           "needs --seed",
		"shrink --scenario swarm --seed -1": "needs --seed",
		"run extra":                         "unexpected argument",
	}
	for line, want := range bad {
		_, err := testArgs(strings.Fields(line), io.Discard)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want one containing %q", line, err, want)
		}
	}
}
