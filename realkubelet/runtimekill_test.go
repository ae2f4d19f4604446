package realkubelet

import (
	"fmt"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/realkubelet/explain"
)

// runtimeKillsAfterRestart counts housekeeping's or a move's runtime-only
// kills of uid after the trace's last restart.
func runtimeKillsAfterRestart(trace []string, uid string) int {
	return linesAfterRestart(trace, " UpdatePod "+uid+" kill runtime-pod ")
}

// TestHousekeepingKillsUnknownRuntimePods: housekeeping by itself kills
// each pod the runtime runs whose UID the pod workers do not know
// (HandlePodCleanups' last kill), and none they know. a's containers run
// when it leaves config without a kill; the restarted process never adds
// it, so its first housekeeping kills a as a runtime-only pod. Before,
// the driver's housekeeping made no such kill (only a plan's runtime-kill
// did). A pod the new process re-added, or one the same process still
// knows, is not killed so.
func TestHousekeepingKillsUnknownRuntimePods(t *testing.T) {
	for _, c := range []struct {
		text  string
		kills int
	}{
		{"create a\nrelease a ok\nvanish a\nrestart\nsync-known\n", 1},
		{"create a\nrelease a ok\nrestart\nsync-known\n", 0},
		{"create a\nrelease a ok\nvanish a\nsync-known\n", 0},
	} {
		t.Run(c.text, func(t *testing.T) {
			var trace []string
			synctest.Test(t, func(t *testing.T) {
				d := newDriver(RunOptions{})
				for _, m := range mustParse(t, c.text) {
					d.Apply(m)
				}
				trace = d.h.Trace
				d.Teardown()
			})
			if n := runtimeKillsAfterRestart(trace, "a"); n != c.kills {
				t.Errorf("%d runtime-only kills of a, want %d:\n%s", n, c.kills, strings.Join(trace, "\n"))
			}
		})
	}
}

// TestRejectedRuntimePodKilled is the L7 session 27 left unexplained
// (swarm-restart seed 16,845): b, rejected after a restart with the old
// process's containers still running, is in config but unknown to the pod
// workers; housekeeping kills its runtime pod, and then finishes the
// deleted pod, which leaves the API. The run is clean; before, b stayed in
// the API (an unexplained L7).
func TestRejectedRuntimePodKilled(t *testing.T) {
	moves := mustParse(t, readClean(t, "testdata/L7-rejected-runtime-pod.clean"))
	for _, hold := range []bool{false, true} {
		r := runScriptWith(t, moves, RunOptions{HoldWakes: hold})
		if r.Failed() {
			t.Errorf("hold=%v: findings %v, want none", hold, r.Findings)
		}
		if !strings.Contains(strings.Join(r.Trace, "\n"), "Removed{UID:b") {
			t.Errorf("hold=%v: b never left the API:\n%s", hold, strings.Join(r.Trace, "\n"))
		}
	}
}

// TestRecordsMatchTheQueries: the driver's copy of the workers' records
// (runtimekill.go) agrees with the public queries wherever they can tell
// (after the process's first SyncKnownPods a UID without a record answers
// explain.UnknownAfterSync, and one with a record does not), at rest after
// every step of 40 seeds of the families with runtime kills, restarts and
// purges, in both modes. It fails if the copy keeps what SyncKnownPods
// purged or what completeTerminatingRuntimePod forgot. (Between a restart
// and its first SyncKnownPods the queries cannot tell; that the copy
// begins empty then is TestUpdateOfPodNotAddedDropped's runtime-kill case.)
func TestRecordsMatchTheQueries(t *testing.T) {
	for _, f := range plan.KubeletFamilies() {
		switch f.Name {
		case "orphan-runtime-pods", "swarm", "swarm-restart", "api-shapes", "static-restart-same-uid":
		default:
			continue
		}
		for seed := uint64(1); seed <= 40; seed++ {
			for _, hold := range []bool{false, true} {
				if msg := recordsMismatch(t, f, seed, hold); msg != "" {
					t.Fatalf("%s seed %d hold=%v: %s", f.Name, seed, hold, msg)
				}
			}
		}
	}
}

// recordsMismatch runs one seed and names the first step at which the
// records and the queries disagree ("" if never).
func recordsMismatch(t *testing.T, f plan.Family, seed uint64, hold bool) string {
	msg := ""
	synctest.Test(t, func(t *testing.T) {
		st := plan.SeedStreams(seed)
		d := newDriver(RunOptions{HoldWakes: hold})
		d.atRest = func() {
			if !d.synced || msg != "" {
				return
			}
			for _, uid := range d.sortedUniverse() {
				if known := d.answersOf(uid) != explain.UnknownAfterSync; known != d.records[uid] {
					msg = fmt.Sprintf("step %d (%s): pod %s has a record by the queries: %v, by the driver: %v",
						d.Step, d.Moves[len(d.Moves)-1], uid, known, d.records[uid])
				}
			}
		}
		d.Generate(f.Generate(st.Plan), st.Schedule, st.Faults, hold)
		d.planSteps = len(d.Moves)
		d.Finish(f.Name, seed)
	})
	return msg
}
