package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestExitCodes(t *testing.T) {
	cases := []struct {
		args []string
		code int
		want string // in stdout or stderr
	}{
		{[]string{"-seeds", "300"}, 0, "sticky     pct"},
		{[]string{"-seed", "1"}, 0, "kill lost: true"},
		{[]string{"-seed", "1", "-mailbox", "sticky", "-strategy", "pct"}, 0, "kill lost: false"},
		{[]string{"-seed", "x"}, 2, `malformed seed "x"`},
		{[]string{"-seed", "-3"}, 2, "malformed seed"},
		{[]string{"-bogus"}, 2, "flag provided but not defined: -bogus"},
		{[]string{"-strategy", "dfs"}, 2, `unknown strategy "dfs"`},
		{[]string{"-mailbox", "lifo"}, 2, `unknown mailbox "lifo"`},
		{[]string{"-seeds", "0"}, 2, "want 1 to 10,000,000"},
		{[]string{"run"}, 2, `unexpected argument "run"`},
		{[]string{"-h"}, 0, "usage: simrun"},
	}
	for _, c := range cases {
		var out, errOut bytes.Buffer
		code := run(c.args, &out, &errOut)
		if code != c.code {
			t.Errorf("%v: got exit %d, want %d\nstdout: %s\nstderr: %s", c.args, code, c.code, out.String(), errOut.String())
		}
		if !strings.Contains(out.String()+errOut.String(), c.want) {
			t.Errorf("%v: output lacks %q\nstdout: %s\nstderr: %s", c.args, c.want, out.String(), errOut.String())
		}
	}
}

// TestSweepOutputIsDeterministic: the same flags print the same bytes.
func TestSweepOutputIsDeterministic(t *testing.T) {
	var a, b bytes.Buffer
	run([]string{"-seeds", "200", "-start", "50"}, &a, &a)
	run([]string{"-seeds", "200", "-start", "50"}, &b, &b)
	if a.String() != b.String() {
		t.Fatalf("two sweeps printed different output:\n%s\n---\n%s", a.String(), b.String())
	}
}
