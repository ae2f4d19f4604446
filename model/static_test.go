package model

import (
	"slices"
	"testing"

	"github.com/podsim/podsim/model/ops"
)

// lifecycle returns the operations that take a started pod through
// termination to finished, with grace 30 and no completions.
func lifecycle(p ops.Pod) []ops.Op {
	return []ops.Op{
		do(upd(ops.Kill, p)),
		do(beginTerminating(p.UID, p.Version, 30)), do(end(p.UID, ops.SyncTerminatingPod, ops.OK)),
		do(beginTerminated(p.UID, p.Version)), do(end(p.UID, ops.SyncTerminatedPod, ops.OK)),
	}
}

func started(p ops.Pod) []ops.Op {
	return []ops.Op{do(upd(ops.Create, p)), do(beginSync(p.UID, ops.Create, p.Version)), do(end(p.UID, ops.SyncPod, ops.OK))}
}

func concat(parts ...[]ops.Op) []ops.Op { return slices.Concat(parts...) }

// TestStaticExclusion follows TestStaticPodExclusion (SPEC §5, S15).
func TestStaticExclusion(t *testing.T) {
	p1 := pod("1", 1)
	p1.Name = "web"
	p2, p3, p4 := staticPod("2", "web", 1), staticPod("3", "web", 1), staticPod("4", "web", 1)
	steps := []struct {
		name  string
		ops   []ops.Op
		calls map[string][]ops.SyncFn // possible next callbacks per UID
	}{
		{"non-static and static with the same name both run", concat(started(p1), started(p2)), nil},
		{"later static pods wait", []ops.Op{do(upd(ops.Create, p3)), do(upd(ops.Create, p4)), do(upd(ops.Update, p3))},
			map[string][]ops.SyncFn{"3": nil, "4": nil}},
		{"a waiter killed before start is cleaned up without a call", []ops.Op{do(upd(ops.Kill, p3)), op(q(ops.ShouldPodBeFinished, "3"), yes),
			op(q(ops.ShouldPodContainersBeTerminating, "3"), yes)}, map[string][]ops.SyncFn{"3": nil}},
		{"the started pod terminating does not release the name",
			[]ops.Op{do(upd(ops.Kill, p2)), do(beginTerminating("2", 1, 30)), do(end("2", ops.SyncTerminatingPod, ops.OK)),
				op(q(ops.IsPodKnownTerminated, "2"), yes), do(upd(ops.Update, p4))},
			map[string][]ops.SyncFn{"4": nil}},
		{"finishing does; the killed waiter is skipped",
			[]ops.Op{do(beginTerminated("2", 1)), do(end("2", ops.SyncTerminatedPod, ops.OK)), do(upd(ops.Update, p4))},
			map[string][]ops.SyncFn{"4": {ops.SyncPod}}},
	}
	var seq []ops.Op
	for _, step := range steps {
		seq = append(seq, step.ops...)
		states := mustRun(t, seq...)
		for uid, want := range step.calls {
			if got := nextCalls(states, uid); !slices.Equal(got, want) {
				t.Errorf("%s: next calls of %s: got %v, want %v", step.name, uid, got, want)
			}
		}
	}
	final := mustRun(t, append(seq, do(beginSync("4", ops.Update, 1)))...)
	if _, err := Next(final, mirror("web_ns"), no); err != nil {
		t.Fatal(err)
	}
}

// TestStaticFIFO: among eligible waiters the first to arrive starts first;
// a killed waiter is skipped (#107900, S15).
func TestStaticFIFO(t *testing.T) {
	pa, pb, pc := staticPod("a", "web", 1), staticPod("b", "web", 1), staticPod("c", "web", 1)
	base := concat(started(pa), []ops.Op{do(upd(ops.Create, pb)), do(upd(ops.Create, pc))}, lifecycle(pa))
	states := mustRun(t, base...)
	if got := nextCalls(states, "c"); got != nil {
		t.Fatalf("c may start before b: %v", got)
	}
	if got := nextCalls(states, "b"); !slices.Equal(got, []ops.SyncFn{ops.SyncPod}) {
		t.Fatalf("b next calls %v, want SyncPod", got)
	}
	if _, err := Next(states, beginSync("c", ops.Create, 1), nil); err == nil {
		t.Fatal("c began before b")
	}
	states = mustRun(t, append(base, do(upd(ops.Kill, pb)))...)
	if _, err := Next(states, beginSync("c", ops.Create, 1), nil); err != nil {
		t.Fatalf("c could not start after b was killed: %v", err)
	}
}

// TestStaticRestartShortcutIsCleanedUp: a static pod first seen terminal
// with an idle runtime is in D but never started; allowPodStart refuses a
// static pod whose termination is requested, so it is cleaned up with no
// sync call (§1.8 step 1 read literally; see the package doc).
func TestStaticRestartShortcutIsCleanedUp(t *testing.T) {
	u := upd(ops.Create, phase(staticPod("a", "web", 1), ops.PhaseSucceeded))
	u.Cache = ops.CacheIdle
	states := mustRun(t, do(u))
	if got := nextCalls(states, "a"); got != nil {
		t.Fatalf("next calls %v, want none", got)
	}
	if _, err := Next(states, q(ops.ShouldPodBeFinished, "a"), yes); err != nil {
		t.Fatal(err)
	}
}
