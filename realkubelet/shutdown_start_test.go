package realkubelet

import (
	"fmt"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/podsim/podsim/realkubelet/planted"
	"github.com/podsim/podsim/realkubelet/script"
)

// TestManagerStartsWithTheKubelet: on a node with graceful shutdown (its
// run shuts it down) every kubelet process starts its node shutdown
// manager before it admits a pod, as upstream's kubelet does: the manager
// holds an inhibit lock from the first move, a restarted process starts
// one of its own (the old one stopped, its loop gone with the process),
// and a node whose run never shuts it down has none.
func TestManagerStartsWithTheKubelet(t *testing.T) {
	moves, _, err := script.Parse("create a\nrelease a ok\nrestart\ncreate b\nshutdown groups=0:2\n")
	if err != nil {
		t.Fatal(err)
	}
	var why string
	synctest.Test(t, func(t *testing.T) {
		d := newDriver(RunOptions{})
		d.graceful = gracefulIn(moves)
		why = lifeOfManagers(d, moves)
		d.Finish("script", 0) // the bubble ends with no goroutine left
	})
	if why != "" {
		t.Fatal(why)
	}
	synctest.Test(t, func(t *testing.T) {
		d := newDriver(RunOptions{})
		d.graceful = gracefulIn(moves[:4])
		for _, m := range moves[:4] {
			d.Apply(m)
		}
		if d.graceful != nil || d.actors.Shutdown != nil {
			why = fmt.Sprintf("a run with no shutdown: groups %v, manager %v; want none", d.graceful, d.actors.Shutdown != nil)
		}
		d.Finish("script", 0)
	})
	if why != "" {
		t.Fatal(why)
	}
}

// lifeOfManagers applies moves (a create, its release, a restart, the
// rest) and says what is wrong with the managers it sees, "" if nothing.
func lifeOfManagers(d *Driver, moves []script.Move) string {
	d.Apply(moves[0])
	first := d.actors.Shutdown
	if first == nil || !first.HoldsLock() || d.actors.ShutdownBegun() {
		return fmt.Sprintf("after the first create: manager %v, holds a lock %v, shutdown begun %v; want a started manager holding one, no shutdown",
			first != nil, first != nil && first.HoldsLock(), d.actors.ShutdownBegun())
	}
	d.Apply(moves[1])
	d.Apply(moves[2])
	if second := d.actors.Shutdown; second == nil || second == first || !second.HoldsLock() {
		return fmt.Sprintf("after the restart: a manager %v, the old one %v; want a new one holding a lock", second != nil, second == first)
	}
	for _, m := range moves[3:] {
		d.Apply(m)
	}
	if !d.actors.ShutdownBegun() || !d.actors.ShuttingDown() {
		return "the shutdown was not announced to the new process's manager"
	}
	return ""
}

// TestAdmissionAsksTheManagerFromTheStart: a manager whose admission
// refuses every pod (planted RejectsAlways, as a mutant of its Admit
// would) is caught before any shutdown, in the first process and in a
// restarted one (P7: a rejection with no shutdown in force), and only on
// a node with graceful shutdown: without one the kubelet asks no manager.
func TestAdmissionAsksTheManagerFromTheStart(t *testing.T) {
	const withShutdown = "create a\nrelease a ok\nrestart\ncreate b\nshutdown groups=0:2\n"
	if u := runActorsScript(t, withShutdown, RunOptions{}).Unexplained(); len(u) > 0 {
		t.Fatalf("the script without the plant: unexplained %v", u)
	}
	var before []string
	for _, u := range unexplainedP7(runActorsScript(t, withShutdown, RunOptions{plant: planted.RejectsAlways})) {
		if strings.Contains(u, "rejected pod") && strings.Contains(u, "before any node shutdown") {
			before = append(before, u)
		}
	}
	// a at its create and at the restart's re-add, b at its create.
	if len(before) != 3 || !strings.Contains(before[0], "pod a") || !strings.Contains(before[2], "pod b") {
		t.Fatalf("rejections before the shutdown: %q, want a's twice and b's", before)
	}
	const noShutdown = "create a\nrelease a ok\nrestart\ncreate b\n"
	if u := runActorsScript(t, noShutdown, RunOptions{plant: planted.RejectsAlways}).Unexplained(); len(u) > 0 {
		t.Fatalf("no graceful shutdown, yet: unexplained %v", u)
	}
}
