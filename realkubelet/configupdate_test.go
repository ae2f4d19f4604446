package realkubelet

import (
	"strings"
	"testing"
	"testing/synctest"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/realkubelet/script"
)

// TestUpdateOfPodNotAddedDropped: an update, sync, delete, finish, kill or
// kill-now of a pod that an earlier kubelet process added and that left config before
// the restart does not reach the new pod workers, as the simulated world
// drops it (world/actions.go, toWorkers); before, the driver sent it and
// the new workers started a worker for a pod outside config. A pod removed
// by the process that added it is still updated (the world sends that one
// too), so is a pod the new process re-added, and so is a pod no process
// ever added (a script's bare update, the pod-worker contract's input).
// Housekeeping's runtime-only kill of such a pod still reaches them (GH's
// first move: it kills what the runtime runs).
func TestUpdateOfPodNotAddedDropped(t *testing.T) {
	for _, move := range []string{"update a", "sync a", "delete a grace=5", "finish a phase=Succeeded", "kill a grace=5", "kill-now a grace=5"} {
		t.Run(move, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				d := newDriver(RunOptions{Real: restartOn})
				for _, m := range mustParse(t, "create a\ncreate b\nrelease a ok\nremove a\nrestart\n"+move+"\n") {
					d.Apply(m)
				}
				if n := updatesAfterRestart(d.h.Trace, "a"); n != 0 || d.lastUpdate["a"] != 0 {
					t.Errorf("%s after a restart reached the new pod workers (%d UpdatePod of a; a is not in config and was never added by them)", move, n)
				}
				d.Teardown()
			})
		})
	}
	for _, text := range []string{"create a\nrelease a ok\nremove a\nupdate a\n", "create a\nrelease a ok\nrestart\nupdate a\n",
		"create b\nrestart\nupdate a\n", "delete a grace=0\n", "create a\nrelease a ok\nremove a\nkill a grace=5\n",
		"create a\nrelease a ok\nrestart\nkill-now a grace=5\n", "create b\nrestart\nkill a grace=5\n",
		"create a\nrelease a ok\nremove a\nrestart\nruntime-kill a\n"} {
		t.Run(text, func(t *testing.T) {
			if sent, step, n := lastMoveReached(t, RunOptions{Real: restartOn}, text, "a"); !sent {
				t.Errorf("%q: the last update of a was at step %d, want %d (it must reach the workers)", text, step, n)
			}
		})
	}
}

// updatesAfterRestart counts the UpdatePod calls of uid after the trace's
// last restart.
func updatesAfterRestart(trace []string, uid string) int {
	return linesAfterRestart(trace, " UpdatePod "+uid+" ")
}

// linesAfterRestart counts the trace's lines holding what after its last
// restart.
func linesAfterRestart(trace []string, what string) int {
	n := 0
	for _, l := range trace {
		switch {
		case strings.Contains(l, " restarted "):
			n = 0
		case strings.Contains(l, what):
			n++
		}
	}
	return n
}

// TestUpdateOutOfConfigInShutdownDropped: during a node shutdown an update
// of a pod out of config does not reach the pod workers, since upstream's
// config merge makes it an ADD that the shutdown rejects (swarm seed 9,056,
// both modes: the update started c during the shutdown, an unexplained
// K5). Without the shutdown the same update is still sent.
func TestUpdateOutOfConfigInShutdownDropped(t *testing.T) {
	const moves = "create c static=web prio=2000000000\nremove c static=web\ncreate c static=web prio=2000000000\n" +
		"remove c static=web\nsync-known\nupdate c static=web\n"
	for _, c := range []struct {
		text string
		sent bool
	}{{"shutdown\n" + moves, false}, {moves, true}} {
		if sent, _, _ := lastMoveReached(t, RunOptions{}, c.text, "c"); sent != c.sent {
			t.Errorf("%q: the last update reached the workers: %v, want %v", c.text, sent, c.sent)
		}
	}
}

// TestRuntimeKillOfKnownPodDropped: housekeeping's runtime kill names
// only UIDs the pod workers do not know (runtimekill.go), so the driver
// drops a plan's runtime-kill of a pod they know: an active pod in config
// (session 27's rule, "in config", kept this case: before it, the harness
// reached GB through a kill upstream never sends, GB-swarm-16, now a
// clean script), and a pod out of config whose record is still there (a
// remove's kill, a vanish without one). A runtime-kill of a pod whose
// record is gone (purged, or the process restarted) is sent, in config or
// not: the rejected pod with an earlier process's containers. So is one of
// a pod no kubelet process ever added (the scripts' contract input), even
// with a record a bare update made. Session 27's rule ("dropped when in
// config") fails the vanish, remove and rejected cases.
func TestRuntimeKillOfKnownPodDropped(t *testing.T) {
	for _, c := range []struct {
		text string
		sent bool
	}{
		{"create a\nruntime-kill a\n", false},
		{"create a static=web\nrelease a ok\nruntime-kill a static=web\n", false},
		{"create a\nrelease a ok\nremove a\nruntime-kill a\n", false},
		{"create a\nvanish a\nruntime-kill a\n", false},
		{"create a\nrelease a ok\nremove a\nrelease a ok\nrelease a ok\nsync-known\nruntime-kill a\n", true},
		{"create a\nrelease a ok\nvanish a\nrestart\nshutdown\ncreate a\nruntime-kill a\n", true},
		{"runtime-kill a\n", true},
		{"sync a\nruntime-kill a\n", true},
	} {
		t.Run(c.text, func(t *testing.T) {
			if sent, step, n := lastMoveReached(t, RunOptions{}, c.text, "a"); sent != c.sent {
				t.Errorf("%q: the runtime kill reached the pod workers %v, want %v (last update of a at step %d of %d)",
					c.text, sent, c.sent, step, n)
			}
		})
	}
	moves, _, err := script.Parse(readClean(t, "testdata/GB-swarm-16.clean"))
	if err != nil {
		t.Fatal(err)
	}
	if r := runScript(t, moves); r.Failed() {
		t.Errorf("GB-swarm-16.clean: findings %v, want none (the runtime kill of a pod in config dropped)", r.Findings)
	}
}

// lastMoveReached runs text's moves on a new driver with options o and
// says whether uid's last UpdatePod came from the last move (its step and
// the number of moves).
func lastMoveReached(t *testing.T, o RunOptions, text string, uid types.UID) (reached bool, step, moves int) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		d := newDriver(o)
		ms := mustParse(t, text)
		for _, m := range ms {
			d.Apply(m)
		}
		step, moves = d.lastUpdate[uid], len(ms)
		d.Teardown()
	})
	return step == moves, step, moves
}
