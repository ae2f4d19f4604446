package plan

import (
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/sim"
)

// The families of the kubelet-level world (Plan.Node): each exercises one
// actor around the pod workers and the K invariants it must keep.

// GenerateRejectedAdmission: pods compete for a small node; some are
// rejected (a local Failed status), some rejected ones are then deleted,
// others finish and free their resources for later pods (SPEC §2
// admission, K1, K2, K4; B5, B10, B13).
func GenerateRejectedAdmission(src sim.Source) Plan {
	p := newPlanner(src, "rejected-admission", 1+src.Intn(2), Faults{ErrorRate: pick(src, 0, 100), SlowRate: 300,
		MaxDelay: time.Second, TerminalRate: pick(src, 0, 300)})
	p.plan.Node = &Node{CPU: 4, Mem: 4, APIServer: true, EchoLag: pick(src, 0, 500*time.Millisecond, time.Second, 2*time.Second)}
	uids := p.uids(3 + src.Intn(2))
	for i, uid := range uids {
		p.add(Create, uid, Action{CPU: int64(1 + src.Intn(3)), Mem: int64(1 + src.Intn(3))})
		p.wait(3)
		target := uids[src.Intn(i+1)]
		if src.Intn(2) == 0 {
			target = uid // the newest pod: the likeliest to have been rejected
		}
		switch src.Intn(4) {
		case 0:
			p.add(Delete, target, Action{Grace: int64(pick(src, 0, 1, 5, 30))})
		case 1:
			p.add(Finish, target, Action{Terminal: pick(src, "Succeeded", "Failed")})
		case 2:
			p.add(Remove, target, Action{})
		}
	}
	return p.plan
}

// GenerateNodeShutdown: pods of two priority groups run (one may have
// succeeded already); the node shuts down, possibly while pods still
// start, and a pod arrives afterwards (SPEC §2 node shutdown, K5; B4).
func GenerateNodeShutdown(src sim.Source) Plan {
	p := newPlanner(src, "node-shutdown", 1+src.Intn(2), Faults{ErrorRate: pick(src, 0, 100), SlowRate: 400,
		MaxDelay: 2 * time.Second, IgnoreCancel: pick(src, 0, 500)})
	p.plan.Node = &Node{APIServer: true, EchoLag: pick(src, 0, time.Second), ShutdownGroups: []ShutdownGroup{
		{Priority: 0, Grace: int64(pick(src, 2, 5, 10))}, {Priority: 1000, Grace: int64(pick(src, 1, 3))}}}
	uids := p.uids(4)
	for _, uid := range uids[:2+src.Intn(2)] {
		p.add(Create, uid, Action{Priority: int32(pick(src, 0, 0, 1000)), SpecGrace: int64(pick(src, 1, 5, 30))})
		p.wait(2)
	}
	if src.Intn(3) == 0 {
		p.add(Finish, uids[0], Action{Terminal: "Succeeded"})
	}
	p.wait(4)
	p.add(Shutdown, "", Action{})
	p.wait(2)
	p.add(Create, uids[3], Action{})
	return p.plan
}

// GenerateShutdownCancel: the node shuts down and logind withdraws the
// shutdown, while its kills run or after; the manager's event loop reads
// the withdrawal once its processing returned and reopens admission. Pods
// arrive during the shutdown, just after the cancellation (before or
// after the loop read it) and later; the node may shut down again once
// the first shutdown's groups are surely over (SPEC §2 node shutdown, K5;
// upstream GJ).
func GenerateShutdownCancel(src sim.Source) Plan {
	p, groups, uids, begun := shutdownPrologue(src, "shutdown-cancel")
	p.wait(pick(src, 0, 2, 8)) // up to 4 s: at times after the groups' kills returned
	p.add(ShutdownCancel, "", Action{})
	p.wait(2)
	p.add(Create, uids[4], Action{SpecGrace: int64(pick(src, 1, 5))})
	if src.Intn(2) == 0 {
		// The first shutdown's processing is over by then: its groups'
		// graces, counted from when it began.
		p.at = max(p.at, begun+time.Duration(groups[0].Grace+groups[1].Grace+2)*time.Second)
		p.add(Create, uids[5], Action{Priority: int32(pick(src, 0, 1000))})
		p.wait(2)
		p.add(Shutdown, "", Action{})
	}
	return p.plan
}

// shutdownPrologue begins family name's plan around a node shutdown: a
// node with two priority groups, 2 or 3 pods of either group created, the
// shutdown, and in half the plans a pod created during it; it returns six
// UIDs (the fourth the pod created during the shutdown) and when the
// shutdown began.
func shutdownPrologue(src sim.Source, name string) (*planner, []ShutdownGroup, []types.UID, time.Duration) {
	p := newPlanner(src, name, 1+src.Intn(2), Faults{ErrorRate: pick(src, 0, 100), SlowRate: 400,
		MaxDelay: 2 * time.Second, IgnoreCancel: pick(src, 0, 500)})
	groups := []ShutdownGroup{{Priority: 0, Grace: int64(pick(src, 2, 5))}, {Priority: 1000, Grace: int64(pick(src, 1, 3))}}
	p.plan.Node = &Node{APIServer: true, EchoLag: pick(src, 0, time.Second), ShutdownGroups: groups}
	uids := p.uids(6)
	for _, uid := range uids[:2+src.Intn(2)] {
		p.add(Create, uid, Action{Priority: int32(pick(src, 0, 0, 1000)), SpecGrace: int64(pick(src, 1, 5, 30))})
		p.wait(2)
	}
	p.wait(3)
	begun := p.add(Shutdown, "", Action{}).At
	p.wait(2)
	if src.Intn(2) == 0 {
		p.add(Create, uids[3], Action{})
	}
	return p, groups, uids, begun
}

// GenerateShutdownGroups: a node with two or three priority groups, and
// pods of priorities around them — below the lowest group's, at a group's,
// just above it (so between two groups, or above the highest), critical —
// with spec graces below, at and above their group's grace; the node shuts
// down, and a pod arrives afterwards (SPEC §1.13, P7: a pod belongs to the
// last group whose priority is at most its own, the first taking any lower
// one, and is killed with grace min(group, spec); the real kubelet's
// groupByPriority and killPods).
func GenerateShutdownGroups(src sim.Source) Plan {
	p := newPlanner(src, "shutdown-groups", 1+src.Intn(2), Faults{ErrorRate: pick(src, 0, 100), SlowRate: 400,
		MaxDelay: 2 * time.Second, IgnoreCancel: pick(src, 0, 500)})
	groups := []ShutdownGroup{{Priority: pick[int32](src, 0, 100), Grace: int64(pick(src, 2, 4))},
		{Priority: 1000, Grace: int64(pick(src, 1, 3))}}
	if src.Intn(2) == 0 {
		groups = append(groups, ShutdownGroup{Priority: 5000, Grace: int64(pick(src, 1, 2))})
	}
	p.plan.Node = &Node{APIServer: true, EchoLag: pick(src, 0, time.Second), ShutdownGroups: groups}
	uids := p.uids(5)
	for _, uid := range uids[:3+src.Intn(2)] {
		g := groups[src.Intn(len(groups))]
		prio := pick(src, g.Priority-1, g.Priority, g.Priority+1, CriticalPriority)
		grace := pick(src, max(1, g.Grace-1), g.Grace, g.Grace+1)
		p.add(Create, uid, Action{Priority: prio, SpecGrace: grace})
		p.wait(2)
	}
	p.wait(3)
	p.add(Shutdown, "", Action{})
	p.wait(2)
	p.add(Create, uids[4], Action{})
	return p.plan
}

// GenerateShutdownRestart: the node shuts down and the kubelet restarts
// before the node powers off, while the shutdown's kills run or after
// they returned; logind announced the shutdown to the old process and
// does not announce it again (kubernetes#122674). Pods arrive during the
// shutdown before the restart and after it (SPEC §2 node shutdown, K5
// across a restart; B17).
func GenerateShutdownRestart(src sim.Source) Plan {
	p, groups, uids, begun := shutdownPrologue(src, "shutdown-restart")
	if src.Intn(3) > 0 {
		// After the shutdown's processing: its groups' graces, counted
		// from when it began.
		p.at = max(p.at, begun+time.Duration(groups[0].Grace+groups[1].Grace+2)*time.Second)
	}
	p.add(Restart, "", Action{})
	p.wait(pick(src, 0, 2))
	p.add(Create, uids[4], Action{SpecGrace: int64(pick(src, 1, 5))})
	p.wait(2)
	switch src.Intn(3) {
	case 0:
		p.add(Create, uids[5], Action{Priority: int32(pick(src, 0, 1000))})
	case 1:
		p.add(SyncKnown, "", Action{})
	}
	return p.plan
}

// GenerateEvictionWait: the eviction manager evicts running pods (kill and
// wait for cleanup), racing a graceful delete, natural completion or a
// second eviction; static and critical pods are spared (SPEC §2 eviction
// manager, L6, S14).
func GenerateEvictionWait(src sim.Source) Plan {
	p := newPlanner(src, "eviction-wait", 2, Faults{ErrorRate: pick(src, 0, 100), SlowRate: 500,
		MaxDelay: 2 * time.Second, TerminalRate: pick(src, 0, 200)})
	p.plan.Node = &Node{APIServer: true, EchoLag: pick(src, 0, time.Second)}
	uids := p.uids(2 + src.Intn(2))
	for i, uid := range uids {
		shape := Action{SpecGrace: int64(pick(src, 5, 30))}
		if i > 0 && src.Intn(4) == 0 {
			shape.Priority = CriticalPriority
		}
		p.add(Create, uid, shape)
		p.wait(1)
	}
	p.wait(3)
	for n := 1 + src.Intn(2); n > 0; n-- {
		uid := uids[src.Intn(len(uids))]
		p.add(Evict, uid, Action{Grace: int64(pick(src, -1, 0, 1, 5))})
		p.wait(2)
		if src.Intn(2) == 0 {
			p.add(pick(src, Delete, Evict, Finish), uid, Action{Grace: int64(pick(src, 0, 2)), Terminal: "Failed"})
		}
	}
	return p.plan
}

// GenerateKubeletRestartTerminalPods: pods run, finish or are deleted; the
// kubelet restarts (once or twice, possibly mid-call): terminal pods must
// start out terminated and be cleaned up and deleted from the API, pods
// that left config while running are killed as runtime-only pods (SPEC
// §1.13, L7 #116925).
func GenerateKubeletRestartTerminalPods(src sim.Source) Plan {
	p := newPlanner(src, "kubelet-restart-terminal-pods", 1+src.Intn(2), Faults{ErrorRate: pick(src, 0, 100),
		SlowRate: 400, MaxDelay: 2 * time.Second, TerminalRate: pick(src, 0, 300)})
	p.plan.Node = &Node{APIServer: true, EchoLag: pick(src, 0, time.Second)}
	uids := p.uids(2 + src.Intn(2))
	for _, uid := range uids {
		p.add(Create, uid, Action{SpecGrace: int64(pick(src, 1, 5))})
		p.wait(1)
	}
	p.wait(2)
	for _, uid := range uids {
		switch src.Intn(4) {
		case 0:
			p.add(Finish, uid, Action{Terminal: pick(src, "Succeeded", "Failed")})
		case 1:
			p.add(Delete, uid, Action{Grace: int64(pick(src, 0, 1, 5))})
		case 2:
			p.add(Remove, uid, Action{})
		}
		p.wait(2)
	}
	for n := 1 + src.Intn(2); n > 0; n-- {
		p.wait(6)
		if src.Intn(2) == 0 {
			// Leave config right before the restart: the new kubelet finds
			// the containers running for a pod it was never told of.
			p.add(pick(src, Remove, Vanish), uids[src.Intn(len(uids))], Action{})
		}
		p.add(Restart, "", Action{})
	}
	if src.Intn(2) == 0 {
		p.add(Delete, uids[src.Intn(len(uids))], Action{Grace: int64(pick(src, 0, 5))})
	}
	return p.plan
}

// GenerateRecreateSameName: a pod object is deleted with a grace period
// and re-created under the same name (a new UID) a few seconds later, while
// its grace may still run: refused while the old object still holds the
// name (then retried under another UID), accepted once it left the API.
// The grace reaper force-deletes objects whose grace expired; faults slow
// the terminations, so some objects outlive their grace. Sometimes a
// second round deletes and re-creates again, or a pod of another name
// lives alongside (SPEC §2 API server model, K6; docs/bugs.md V2).
func GenerateRecreateSameName(src sim.Source) Plan {
	p := newPlanner(src, "recreate-same-name", 1+src.Intn(2), Faults{ErrorRate: pick(src, 0, 100, 300),
		SlowRate: pick(src, 0, 300, 600), MaxDelay: pick(src, time.Second, 3*time.Second)})
	p.plan.Node = &Node{APIServer: true, UniqueNames: true, ForceDeleteAfterGrace: true,
		EchoLag: pick(src, 0, 500*time.Millisecond, time.Second)}
	uids := p.uids(6)
	web := func() Action { return Action{Name: "web", SpecGrace: int64(pick(src, 5, 30))} }
	p.add(Create, uids[0], web())
	other := src.Intn(3) == 0
	if other {
		p.add(Create, uids[5], Action{Name: "db", SpecGrace: int64(pick(src, 5, 30))})
	}
	p.wait(4)
	// holders are the UIDs that may hold the name "web": each create after
	// the first may have been refused, so a delete goes to all of them (the
	// one that is not in the API does nothing).
	holders, next := []types.UID{uids[0]}, 1
	for round := 1 + src.Intn(2); round > 0; round-- {
		for _, uid := range holders {
			p.add(Delete, uid, Action{Grace: int64(pick(src, 5, 10, 30))})
		}
		if other && src.Intn(3) == 0 {
			p.add(Delete, uids[5], Action{Grace: int64(pick(src, 0, 5))})
		}
		p.at += time.Duration(2+src.Intn(10)) * 500 * time.Millisecond
		p.add(Create, uids[next], web())
		p.at += time.Duration(2+src.Intn(12)) * 500 * time.Millisecond
		p.add(Create, uids[next+1], web()) // the retry, if the first was refused
		holders, next = []types.UID{uids[next], uids[next+1]}, next+2
		p.wait(6)
	}
	if src.Intn(2) == 0 {
		for _, uid := range holders {
			p.add(Delete, uid, Action{Grace: int64(pick(src, 0, 5, 30))})
		}
	}
	return p.plan
}
