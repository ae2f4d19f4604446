package script

import (
	"strings"
	"testing"
)

// TestScriptRoundTrip: every kind of move reads back from its own line,
// so Format(Parse(text)) is text; "expect" lines and comments are kept
// apart.
func TestScriptRoundTrip(t *testing.T) {
	text := strings.Join([]string{
		"hold-wakes",
		"create a static=web spec-grace=5 prio=1000",
		"release a ok",
		"wake a",
		"tick",
		"kill a grace=3",
		"deliver a",
		"delete b grace=0 evict",
		"finish c phase=Failed",
		"shutdown groups=0:10,1000:20",
		"status-sync",
		"status-resync",
		"status-sync order=b,a",
		"status-resync order=c",
		"echo",
		"release b terminal",
	}, "\n") + "\n"
	moves, expect, err := Parse("# a script\n" + text + "expect G1\n")
	if err != nil {
		t.Fatal(err)
	}
	if got := Format(moves); got != text {
		t.Fatalf("Format(Parse(text)):\n%s\nwant:\n%s", got, text)
	}
	if len(expect) != 1 || expect[0] != "G1" {
		t.Fatalf("expect = %q", expect)
	}
	if moves[1].Action.Grace != -1 || moves[7].Action.SpecGrace != 30 {
		t.Fatalf("defaults: grace %d, spec-grace %d", moves[1].Action.Grace, moves[7].Action.SpecGrace)
	}
}

// TestParseRefusesBadLines: each bad line is refused with its line number.
func TestParseRefusesBadLines(t *testing.T) {
	for _, bad := range []string{"tick now", "wake", "release a", "release a slow", "fly a",
		"kill a grace=-1", "create a prio=x", "shutdown groups=1", "create a colour=red",
		"status-sync a", "status-sync order=", "status-sync order=a,a", "echo order=a", "tick order=a", "status-sync order=a x"} {
		if _, _, err := Parse("tick\n" + bad + "\n"); err == nil || !strings.HasPrefix(err.Error(), "line 2: ") {
			t.Errorf("%q: err = %v", bad, err)
		}
	}
}
