package model

import (
	"slices"
	"testing"
)

// lifecycle returns the operations that take a started pod through
// termination to finished, with grace 30 and no completions.
func lifecycle(p Pod) []Op {
	return []Op{
		do(upd(Kill, p)),
		do(beginTerminating(p.UID, p.Version, 30)), do(end(p.UID, SyncTerminatingPod, OK)),
		do(beginTerminated(p.UID, p.Version)), do(end(p.UID, SyncTerminatedPod, OK)),
	}
}

func started(p Pod) []Op {
	return []Op{do(upd(Create, p)), do(beginSync(p.UID, Create, p.Version)), do(end(p.UID, SyncPod, OK))}
}

func concat(parts ...[]Op) []Op { return slices.Concat(parts...) }

// TestStaticExclusion follows TestStaticPodExclusion (SPEC §5, S15).
func TestStaticExclusion(t *testing.T) {
	p1 := pod("1", 1)
	p1.Name = "web"
	p2, p3, p4 := staticPod("2", "web", 1), staticPod("3", "web", 1), staticPod("4", "web", 1)
	steps := []struct {
		name  string
		ops   []Op
		calls map[string][]SyncFn // possible next callbacks per UID
	}{
		{"non-static and static with the same name both run", concat(started(p1), started(p2)), nil},
		{"later static pods wait", []Op{do(upd(Create, p3)), do(upd(Create, p4)), do(upd(Update, p3))},
			map[string][]SyncFn{"3": nil, "4": nil}},
		{"a waiter killed before start is cleaned up without a call", []Op{do(upd(Kill, p3)), op(q(ShouldPodBeFinished, "3"), yes),
			op(q(ShouldPodContainersBeTerminating, "3"), yes)}, map[string][]SyncFn{"3": nil}},
		{"the started pod terminating does not release the name",
			[]Op{do(upd(Kill, p2)), do(beginTerminating("2", 1, 30)), do(end("2", SyncTerminatingPod, OK)),
				op(q(IsPodKnownTerminated, "2"), yes), do(upd(Update, p4))},
			map[string][]SyncFn{"4": nil}},
		{"finishing does; the killed waiter is skipped",
			[]Op{do(beginTerminated("2", 1)), do(end("2", SyncTerminatedPod, OK)), do(upd(Update, p4))},
			map[string][]SyncFn{"4": {SyncPod}}},
	}
	var ops []Op
	for _, step := range steps {
		ops = append(ops, step.ops...)
		states := mustRun(t, ops...)
		for uid, want := range step.calls {
			if got := nextCalls(states, uid); !slices.Equal(got, want) {
				t.Errorf("%s: next calls of %s: got %v, want %v", step.name, uid, got, want)
			}
		}
	}
	final := mustRun(t, append(ops, do(beginSync("4", Update, 1)))...)
	if _, err := Next(final, mirror("web_ns"), no); err != nil {
		t.Fatal(err)
	}
}

// TestStaticFIFO: among eligible waiters the first to arrive starts first;
// a killed waiter is skipped (#107900, S15).
func TestStaticFIFO(t *testing.T) {
	pa, pb, pc := staticPod("a", "web", 1), staticPod("b", "web", 1), staticPod("c", "web", 1)
	base := concat(started(pa), []Op{do(upd(Create, pb)), do(upd(Create, pc))}, lifecycle(pa))
	states := mustRun(t, base...)
	if got := nextCalls(states, "c"); got != nil {
		t.Fatalf("c may start before b: %v", got)
	}
	if got := nextCalls(states, "b"); !slices.Equal(got, []SyncFn{SyncPod}) {
		t.Fatalf("b next calls %v, want SyncPod", got)
	}
	if _, err := Next(states, beginSync("c", Create, 1), nil); err == nil {
		t.Fatal("c began before b")
	}
	states = mustRun(t, append(base, do(upd(Kill, pb)))...)
	if _, err := Next(states, beginSync("c", Create, 1), nil); err != nil {
		t.Fatalf("c could not start after b was killed: %v", err)
	}
}

// TestStaticRestartShortcutIsCleanedUp: a static pod first seen terminal
// with an idle runtime is in D but never started; allowPodStart refuses a
// static pod whose termination is requested, so it is cleaned up with no
// sync call (§1.8 step 1 read literally; see the package doc).
func TestStaticRestartShortcutIsCleanedUp(t *testing.T) {
	u := upd(Create, phase(staticPod("a", "web", 1), PhaseSucceeded))
	u.Cache = CacheIdle
	states := mustRun(t, do(u))
	if got := nextCalls(states, "a"); got != nil {
		t.Fatalf("next calls %v, want none", got)
	}
	if _, err := Next(states, q(ShouldPodBeFinished, "a"), yes); err != nil {
		t.Fatal(err)
	}
}
