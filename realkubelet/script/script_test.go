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
		"create c name=web prio=2000000000",
		"release a ok",
		"wake a",
		"tick",
		"kill a grace=3",
		"deliver a",
		"delete b grace=0 evict",
		"finish c phase=Failed",
		"shutdown groups=0:10,1000:20",
		"shutdown-cancel",
		"status-sync",
		"status-resync",
		"status-sync order=b,a",
		"status-resync order=c",
		"echo",
		"release b terminal",
		"logind-restart",
		"logind-restart fail=none",
		"logind-delay",
		"logind-delay apply=slow",
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
	if moves[1].Action.Grace != -1 || moves[8].Action.SpecGrace != 30 {
		t.Fatalf("defaults: grace %d, spec-grace %d", moves[1].Action.Grace, moves[8].Action.SpecGrace)
	}
	if a := moves[2].Action; a.Name != "web" || a.Static {
		t.Fatalf("create c name=web: name %q, static %v", a.Name, a.Static)
	}
}

// TestAPIPodNameKept: an API pod's own name survives Format and Parse
// (it was dropped: swarm seed 3,746's shrunk script, an API pod c named
// web beside the static pod web, replayed without the shared name and
// lost its K5), and the default name "pod-<uid>" is not written.
func TestAPIPodNameKept(t *testing.T) {
	moves, _, err := Parse("create c prio=5\n")
	if err != nil {
		t.Fatal(err)
	}
	moves[0].Action.Name = "web"
	back, _, err := Parse(Format(moves))
	if err != nil || back[0].Action.Name != "web" {
		t.Fatalf("Format %q read back name %q (%v)", Format(moves), back[0].Action.Name, err)
	}
	moves[0].Action.Name = "pod-c"
	if got := Format(moves); got != "create c prio=5\n" {
		t.Fatalf("default name written: %q", got)
	}
}

// TestParseRefusesBadLines: each bad line is refused with its line number.
func TestParseRefusesBadLines(t *testing.T) {
	for _, bad := range []string{"tick now", "wake", "release a", "release a slow", "fly a",
		"kill a grace=-1", "create a prio=x", "shutdown groups=1", "create a colour=red",
		"status-sync a", "status-sync order=", "status-sync order=a,a", "echo order=a", "tick order=a", "status-sync order=a x", "create a name=",
		"logind-restart fail=later", "logind-restart fail=none x", "status-sync fail=none", "logind-restart order=a",
		"logind-delay apply=never", "logind-delay fail=none", "logind-restart apply=slow", "vk-create a", "vk-restart"} {
		if _, _, err := Parse("tick\n" + bad + "\n"); err == nil || !strings.HasPrefix(err.Error(), "line 2: ") {
			t.Errorf("%q: err = %v", bad, err)
		}
	}
}
