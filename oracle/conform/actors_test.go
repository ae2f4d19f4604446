package conform

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/plan"
)

// runEviction: pod a is admitted (static if static) and evicted with grace
// 3; the eviction actor sends kill (nil: nothing after its question) and
// polls the cleanup at the times given, the last poll answering true.
func runEviction(static bool, kill *ops.UpdatePod, polls ...time.Duration) []history.Violation {
	create, evict := act(plan.Create, "a", 0), act(plan.Evict, "a", time.Second)
	create.Static, evict.Grace = static, 3
	s := newScript(plan.Plan{Clients: 1, Node: &plan.Node{}, Actions: []plan.Action{create, evict}}, true)
	s.action(func() {
		a := s.v.pod("a")
		s.admission("a")
		a.InConfig, a.Admitted = true, true
		p := pod("a", 1)
		p.Static = static
		s.call("client/0", upd(ops.Create, p), nil)
	})
	s.action(func() {})
	s.note("eviction/1", history.EvictionBegins{UID: "a"})
	s.call("eviction/1", ops.Query{Kind: ops.IsPodKnownTerminated, UID: "a"}, ops.Answer(false))
	if kill != nil {
		s.call("eviction/1", *kill, nil)
		s.call("eviction/1", ops.KillPodNowDone{UID: "a", ID: kill.Kill.CompletionID}, ops.Answer(true))
	}
	for i, at := range polls {
		s.id++
		s.o.Observe(s.v, &history.Event{Seq: s.seq, Kind: history.ClientCall, ID: s.id, At: at, Goroutine: "eviction/1",
			Input: ops.Query{Kind: ops.ShouldPodBeFinished, UID: "a"}})
		s.o.Observe(s.v, &history.Event{Seq: s.seq, Kind: history.ClientReturn, ID: s.id, At: at, Goroutine: "eviction/1",
			Output: ops.Answer(i == len(polls)-1)})
	}
	return s.verdict()
}

func TestP6Eviction(t *testing.T) {
	kill := ops.UpdatePod{Type: ops.Kill, Pod: pod("a", 1),
		Kill: ops.KillOptions{Evict: true, GraceOverride: 3, HasGraceOverride: true, CompletionID: 1}}
	wantNone(t, runEviction(false, &kill, time.Second, 2*time.Second))
	// A static pod is never evicted.
	wantViolation(t, runEviction(true, &kill, time.Second), "P6", "not evictable")
	wantViolation(t, runEviction(false, nil), "P6", "was not killed and waited for")
	// Like an eviction that forgets evict=true (the pod's status then
	// never says Evicted).
	plain := kill
	plain.Kill.Evict = false
	wantViolation(t, runEviction(false, &plain, time.Second), "P6", "want a kill with")
	// waitForPodsCleanup polls once a second, not in a busy loop.
	wantViolation(t, runEviction(false, &kill, time.Second, time.Second), "P6", "cleanup poll 2")
}

// shutdownScript: pods a (priority 0) and b (priority 100) admitted and
// created, in groups of grace 5 s (priority 0) and 10 s (priority 100),
// and the Shutdown action at 1 s begun and done (its actor runs apart).
func shutdownScript() *script {
	a, b := act(plan.Create, "a", 0), act(plan.Create, "b", 0)
	b.Priority = 100
	node := &plan.Node{ShutdownGroups: []plan.ShutdownGroup{{Priority: 0, Grace: 5}, {Priority: 100, Grace: 10}}}
	s := newScript(plan.Plan{Clients: 1, Node: node, Actions: []plan.Action{a, b, act(plan.Shutdown, "", time.Second)}}, true)
	for _, uid := range []string{"a", "b"} {
		s.action(func() {
			s.admission(uid)
			s.call("client/0", upd(ops.Create, pod(uid, 1)), nil)
		})
	}
	s.action(func() {})
	return s
}

// runShutdown: pods a (priority 0) and b (priority 100) in groups of grace
// 5 s (priority 0) and 10 s (priority 100); the shutdown kills them in the
// order given with the graces given; done: it ends.
func runShutdown(order []string, graces map[string]int64, done bool) []history.Violation {
	s := shutdownScript()
	s.note("shutdown/1", history.ShutdownBegins{Active: []types.UID{"a", "b"}})
	for i, uid := range order {
		s.note("shutdown/1", history.ShutdownKill{UID: types.UID(uid)})
		g := "shutdown-kill/" + uid
		s.call(g, ops.UpdatePod{Type: ops.Kill, Pod: pod(uid, 1),
			Kill: ops.KillOptions{GraceOverride: graces[uid], HasGraceOverride: true, CompletionID: i + 1}}, nil)
		s.call(g, ops.KillPodNowDone{UID: uid, ID: i + 1}, ops.Answer(true))
	}
	if done {
		s.note("shutdown/1", history.ShutdownDone{})
	}
	return s.verdict()
}

func TestP7Shutdown(t *testing.T) {
	graces := map[string]int64{"a": 5, "b": 10}
	wantNone(t, runShutdown([]string{"a", "b"}, graces, true))
	wantViolation(t, runShutdown([]string{"b", "a"}, graces, true), "P7", "killed after group 1 began")
	wantViolation(t, runShutdown([]string{"a", "b"}, map[string]int64{"a": 30, "b": 10}, true), "P7",
		"killed pod a", "want grace 5")
	wantViolation(t, runShutdown([]string{"a", "b"}, graces, false), "P7", "never ended")
	wantViolation(t, runShutdownLate(), "P7", "kills all returned by 1s, but the next step waited until 6s")
}

// runShutdownLate: group 0's kill returns at once, but group 1 starts
// only when group 0's grace (5 s) ran out.
func runShutdownLate() []history.Violation {
	s := shutdownScript()
	at := func(d time.Duration, g string, ev history.Event) {
		ev.At, ev.Goroutine, ev.Seq = d, g, s.seq
		s.o.Observe(s.v, &ev)
	}
	s.v.shutdownAt = time.Second
	at(time.Second, "shutdown/1", history.Event{Kind: history.Noted, Note: history.ShutdownBegins{Active: []types.UID{"a", "b"}}})
	for i, uid := range []string{"a", "b"} {
		start := time.Second + time.Duration(i)*5*time.Second
		at(start, "shutdown/1", history.Event{Kind: history.Noted, Note: history.ShutdownKill{UID: types.UID(uid)}})
		g := "shutdown-kill/" + uid
		at(start, g, history.Event{Kind: history.ClientCall, ID: 2*i + 10, Input: ops.UpdatePod{Type: ops.Kill, Pod: pod(uid, 1),
			Kill: ops.KillOptions{GraceOverride: []int64{5, 10}[i], HasGraceOverride: true, CompletionID: i + 1}}})
		at(start, g, history.Event{Kind: history.ClientReturn, ID: 2*i + 10})
		at(start, g, history.Event{Kind: history.ClientCall, ID: 2*i + 11, Input: ops.KillPodNowDone{UID: uid, ID: i + 1}})
		at(start, g, history.Event{Kind: history.ClientReturn, ID: 2*i + 11, Output: ops.Answer(true)})
	}
	at(6*time.Second, "shutdown/1", history.Event{Kind: history.Noted, Note: history.ShutdownDone{}})
	return s.verdict()
}

// runReaper: pod a is deleted with grace 2 at 1 s; the reaper removes it
// at removeAt (0: never, and it stays in the API).
func runReaper(removeAt time.Duration) []history.Violation { return reaperScript(removeAt, true) }

// runReaperNoEcho: the reaper removes pod a in time, but the config source
// never hears of it.
func runReaperNoEcho() []history.Violation { return reaperScript(4*time.Second, false) }

func reaperScript(removeAt time.Duration, echo bool) []history.Violation {
	del := act(plan.Delete, "a", time.Second)
	del.Grace = 2
	node := &plan.Node{APIServer: true, ForceDeleteAfterGrace: true}
	s := newScript(plan.Plan{Clients: 1, Node: node, Actions: []plan.Action{act(plan.Create, "a", 0), del}}, true)
	s.action(func() { s.admitCreate("a") })
	s.action(func() {
		s.note("client/0", history.DeleteRequested{UID: "a", Grace: 2})
		u := pod("a", 2)
		u.DeletionTimestamp, u.HasDeletionGrace, u.DeletionGrace = true, true, 2
		s.call("client/0", upd(ops.Update, u), nil)
	})
	if removeAt > 0 {
		s.o.Observe(s.v, &history.Event{Seq: s.seq, At: removeAt, Kind: history.Noted, Goroutine: "reaper/1",
			Note: history.Removed{UID: "a", By: "grace reaper", Forced: true}})
		s.v.pod("a").InAPI = false
		s.v.pod("a").InConfig = !echo // the echo's REMOVE
	}
	s.settleAt(time.Minute)
	return s.verdict()
}

func TestP8Reaper(t *testing.T) {
	wantNone(t, runReaper(4*time.Second))
	// Like V2 (a forced delete at the wrong moment): before the grace ran
	// out.
	wantViolation(t, runReaper(3*time.Second), "P8", "removed pod a at 3s", "deadline is 4s")
	// A later deadline kept instead of the earliest: the delete comes late.
	wantViolation(t, runReaper(9*time.Second), "P8", "removed pod a at 9s", "deadline is 4s")
	wantViolation(t, runReaper(0), "P8", "still in the API at the end")
	wantViolation(t, runReaperNoEcho(), "P9", "left the API, but is still in config")
}

// TestP7ShutdownAcrossRestart: a shutdown asks the kubelet process running
// when it is asked for; a restart before its actor runs ends it with the old
// process. A shutdown the new kubelet begins is flagged unless a Shutdown
// action asked for it after the restart.
func TestP7ShutdownAcrossRestart(t *testing.T) {
	run := func(before, after bool) []history.Violation {
		p := plan.Plan{Clients: 1, Node: &plan.Node{}, Actions: []plan.Action{act(plan.Restart, "", 0)}}
		if before {
			p.Actions = append([]plan.Action{act(plan.Shutdown, "", 0)}, p.Actions...)
		}
		if after {
			p.Actions = append(p.Actions, act(plan.Shutdown, "", 0))
		}
		s := newScript(p, true)
		if before {
			s.action(func() {})
		}
		s.action(func() { s.ev("client/0", history.Event{Kind: history.Restarted}) })
		if after {
			s.action(func() {})
		}
		s.note("shutdown/1", history.ShutdownBegins{})
		s.note("shutdown/1", history.ShutdownDone{})
		return s.o.Finish(s.v, errStop)
	}
	wantNone(t, run(false, true))
	wantNone(t, run(true, true))
	wantViolation(t, run(true, false), "P7", "no Shutdown action asked for")
	wantViolation(t, run(false, false), "P7", "no Shutdown action asked for")
}

// TestP7ShutdownGivenUp: a shutdown asked for before a kubelet restart,
// whether its actor had begun (admission closed) or not, is given up with
// the old kubelet: its never beginning is no violation. Without the
// restart it is one.
func TestP7ShutdownGivenUp(t *testing.T) {
	run := func(started, restart bool) []history.Violation {
		p := plan.Plan{Clients: 1, Node: &plan.Node{}, Actions: []plan.Action{act(plan.Shutdown, "", 0),
			act(plan.SyncKnown, "", time.Second)}}
		if restart {
			p.Actions[1] = act(plan.Restart, "", time.Second)
		}
		s := newScript(p, true)
		s.action(func() {})
		if started {
			s.v.shutdownAt = 0
		}
		s.action(func() {
			if restart {
				s.ev("client/0", history.Event{Kind: history.Restarted})
			}
		})
		return s.verdict()
	}
	wantNone(t, run(true, true))
	wantNone(t, run(false, true))
	wantViolation(t, run(false, false), "P7", "asked for and never began")
}

// TestP7TwoShutdownsTwoRestarts is swarm-restart seed 1889's shape: at one
// instant a shutdown, a restart, a second shutdown (while the new kubelet
// shuts down: nothing to do) and a second restart. A shutdown that begins
// after the second restart was asked of nobody; one that begins between
// the restarts is the first's, on the kubelet it asked.
func TestP7TwoShutdownsTwoRestarts(t *testing.T) {
	p := plan.Plan{Clients: 1, Node: &plan.Node{}, Actions: []plan.Action{act(plan.Shutdown, "", 0),
		act(plan.Shutdown, "", 0), act(plan.Restart, "", 0), act(plan.Shutdown, "", 0), act(plan.Restart, "", 0)}}
	run := func(lateBegin bool) []history.Violation {
		s := newScript(p, true)
		s.action(func() {})
		s.note("shutdown/1", history.ShutdownBegins{})
		s.v.shutdownAt = 0
		s.action(func() {}) // the kubelet shuts down already: nothing to do
		s.action(func() { s.ev("client/0", history.Event{Kind: history.Restarted}) })
		s.v.shutdownAt = -1
		s.action(func() {})
		if !lateBegin {
			s.note("shutdown/2", history.ShutdownBegins{})
			s.note("shutdown/2", history.ShutdownDone{})
		}
		s.action(func() { s.ev("client/0", history.Event{Kind: history.Restarted}) })
		if lateBegin {
			s.note("shutdown/2", history.ShutdownBegins{})
			s.note("shutdown/2", history.ShutdownDone{})
		}
		return s.verdict()
	}
	wantNone(t, run(false))
	wantViolation(t, run(true), "P7", "no Shutdown action asked for")
}

// runCancel: pod a in one group of grace 5 s; a Shutdown at 1 s, a
// ShutdownCancel at 1 s (once it began) and a Shutdown
// at 20 s. The manager's notes: the first shutdown (its kill of a and
// its end) and then what the case gives, in order: "cancelled" (the
// cancellation read), "done" (the first shutdown's end, when the
// cancellation is read early), "again" (the second shutdown's begin and
// end). stuck: the view's admission ignores the notes from the step so
// named on ("" never).
func runCancel(stuck string, order ...string) []history.Violation {
	node := &plan.Node{ShutdownGroups: []plan.ShutdownGroup{{Priority: 0, Grace: 5}}}
	s := newScript(plan.Plan{Clients: 1, Node: node, Actions: []plan.Action{act(plan.Create, "a", 0),
		act(plan.Shutdown, "", time.Second), act(plan.ShutdownCancel, "", time.Second),
		act(plan.Shutdown, "", 20*time.Second)}}, true)
	s.stuck = stuck == "begin"
	s.action(func() {
		s.admission("a")
		s.call("client/0", upd(ops.Create, pod("a", 1)), nil)
	})
	s.action(func() {})
	s.note("shutdown/1", history.ShutdownBegins{Active: []types.UID{"a"}})
	s.note("shutdown/1", history.ShutdownKill{UID: "a"})
	s.call("shutdown-kill/a", ops.UpdatePod{Type: ops.Kill, Pod: pod("a", 1),
		Kill: ops.KillOptions{GraceOverride: 5, HasGraceOverride: true, CompletionID: 1}}, nil)
	s.call("shutdown-kill/a", ops.KillPodNowDone{UID: "a", ID: 1}, ops.Answer(true))
	s.action(func() {}) // the cancellation, while the shutdown is in force
	for _, step := range order {
		s.pinned, s.pinnedAt = step != "again", time.Second // as the kill returns
		s.stuck = s.stuck || stuck == step
		switch step {
		case "done":
			s.note("shutdown/1", history.ShutdownDone{})
		case "cancelled":
			s.note("shutdown/1", history.ShutdownCancelled{})
		case "again":
			s.action(func() {})
			s.note("shutdown/2", history.ShutdownBegins{})
			s.note("shutdown/2", history.ShutdownDone{})
		}
	}
	return s.verdict()
}

// TestP7ShutdownCancel: a cancellation asked of a shutdown in force is
// read once its processing ended, reopens admission, and lets the next
// Shutdown begin another; read early, never, unasked or without
// reopening admission, it is a violation, as is a shutdown that begins
// with admission open or before the cancellation was read.
func TestP7ShutdownCancel(t *testing.T) {
	wantNone(t, runCancel("", "done", "cancelled", "again"))
	wantViolation(t, runCancel("", "cancelled", "done"), "P7", "before its processing ended")
	wantViolation(t, runCancel("", "done"), "P7", "cancellation was asked for and never read")
	wantViolation(t, runCancel("", "done", "again"), "P7", "no Shutdown action asked for")
	wantViolation(t, runCancel("cancelled", "done", "cancelled"), "P7", "admission is still closed")
	wantViolation(t, runCancel("begin", "done"), "P7", "admission is still open")
}

// TestP7CancelUnasked: a cancellation read with no ShutdownCancel is a
// violation.
func TestP7CancelUnasked(t *testing.T) {
	s := shutdownScript()
	s.note("shutdown/1", history.ShutdownBegins{})
	s.note("shutdown/1", history.ShutdownDone{})
	s.note("shutdown/1", history.ShutdownCancelled{})
	wantViolation(t, s.verdict(), "P7", "no ShutdownCancel asked")
}

// TestP7LateKillOfAnEarlierShutdown: the first shutdown's kill of a waits
// past its group's grace, and its wait returns only during the next
// shutdown (after a cancellation), which kills a again: that return is
// the earlier shutdown's and says nothing of the next one's group, which
// ends at its grace. Counted by UID alone, it made the group look held up
// after all its kills returned (shutdown-cancel seed 12,430).
func TestP7LateKillOfAnEarlierShutdown(t *testing.T) {
	node := &plan.Node{ShutdownGroups: []plan.ShutdownGroup{{Priority: 0, Grace: 5}}}
	s := newScript(plan.Plan{Clients: 1, Node: node, Actions: []plan.Action{act(plan.Create, "a", 0),
		act(plan.Shutdown, "", time.Second), act(plan.ShutdownCancel, "", time.Second),
		act(plan.Shutdown, "", 20*time.Second)}}, true)
	s.action(func() {
		s.admission("a")
		s.call("client/0", upd(ops.Create, pod("a", 1)), nil)
	})
	kill := func(g string, id int) {
		s.note("shutdown/1", history.ShutdownKill{UID: "a"})
		s.call(g, ops.UpdatePod{Type: ops.Kill, Pod: pod("a", 1),
			Kill: ops.KillOptions{GraceOverride: 5, HasGraceOverride: true, CompletionID: id}}, nil)
		s.ev(g, history.Event{Kind: history.ClientCall, ID: 100 + id, Input: ops.KillPodNowDone{UID: "a", ID: id}})
	}
	at := func(d time.Duration, f func()) { s.pinned, s.pinnedAt = true, d; f(); s.pinned = false }
	s.action(func() {})
	s.note("shutdown/1", history.ShutdownBegins{Active: []types.UID{"a"}})
	kill("shutdown-kill/1", 1)
	s.action(func() {}) // the cancellation
	at(6*time.Second, func() {
		s.note("shutdown/1", history.ShutdownDone{}) // the group's grace ran out
		s.note("shutdown/1", history.ShutdownCancelled{})
	})
	s.action(func() {})
	at(20*time.Second, func() {
		s.note("shutdown/2", history.ShutdownBegins{Active: []types.UID{"a"}})
		kill("shutdown-kill/2", 2)
	})
	at(21*time.Second, func() {
		s.ev("shutdown-kill/1", history.Event{Kind: history.ClientReturn, ID: 101, Output: ops.Answer(true)})
	})
	at(25*time.Second, func() { s.note("shutdown/2", history.ShutdownDone{}) })
	at(26*time.Second, func() {
		s.ev("shutdown-kill/2", history.Event{Kind: history.ClientReturn, ID: 102, Output: ops.Answer(true)})
	})
	wantNone(t, s.verdict())
}
