package plan

import (
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/sim"
)

// planner builds a plan action by action; every choice comes from src.
// kept is src when it keeps its plans' actions array (LaneStreams).
type planner struct {
	src  sim.Source
	kept *keptStream
	plan Plan
	at   time.Duration
}

func newPlanner(src sim.Source, family string, clients int, f Faults) *planner {
	k, _ := src.(*keptStream)
	return &planner{src: src, kept: k, plan: Plan{Family: family, Clients: clients, Faults: f, Actions: k.actionsArray()}}
}

// add appends an action at the current time from a random client.
func (p *planner) add(kind ActionKind, uid types.UID, shape Action) *Action {
	a := shape
	a.At, a.Kind, a.UID = p.at, kind, SameUID(uid)
	a.Client = p.src.Intn(max(p.plan.Clients, 1))
	if a.SpecGrace == 0 {
		a.SpecGrace = 30
	}
	if a.Grace == 0 && kind != Delete && kind != Kill && kind != KillNow && kind != VKDelete {
		a.Grace = -1
	}
	p.plan.Actions = append(p.plan.Actions, a)
	p.kept.keep(p.plan.Actions)
	return &p.plan.Actions[len(p.plan.Actions)-1]
}

// wait lets 0 to max half-seconds pass before the next action.
func (p *planner) wait(max int) { p.at += time.Duration(p.src.Intn(max+1)) * 500 * time.Millisecond }

func (p *planner) grace() int64 { return int64(pick(p.src, -1, 0, 1, 5, 30)) }

func (p *planner) uids(n int) []types.UID {
	out := make([]types.UID, n)
	for i := range out {
		out[i] = letterUID(i)
	}
	return out
}

// GenerateEarlyKill: pods killed (kill, graceful delete or removal) right
// after their create, before their worker ran (SPEC §1.2 shortcut, B1/B2).
func GenerateEarlyKill(src sim.Source) Plan {
	p := newPlanner(src, "early-kill", 1+src.Intn(2), Faults{ErrorRate: pick(src, 0, 100), SlowRate: 300, MaxDelay: time.Second})
	for _, uid := range p.uids(1 + src.Intn(3)) {
		p.add(Create, uid, Action{})
		switch src.Intn(3) {
		case 0:
			p.add(Kill, uid, Action{Grace: p.grace(), Evict: src.Intn(2) == 0})
		case 1:
			p.add(Delete, uid, Action{Grace: max(p.grace(), 0)})
		default:
			p.add(Remove, uid, Action{})
		}
		if src.Intn(2) == 0 {
			p.add(pick(src, Update, Sync, Create), uid, Action{})
		}
		p.wait(2)
	}
	return p.plan
}

// GenerateKillDuringCreate: a kill or delete while the first SyncPod is
// still running (image pull), which may or may not honour cancellation
// (SPEC §1.15, B16).
func GenerateKillDuringCreate(src sim.Source) Plan {
	p := newPlanner(src, "kill-during-create", 2, Faults{SlowRate: 1000, MaxDelay: 4 * time.Second,
		IgnoreCancel: pick(src, 0, 500, 1000), ErrorRate: pick(src, 0, 100)})
	for _, uid := range p.uids(1 + src.Intn(2)) {
		p.add(Create, uid, Action{})
		p.at += time.Duration(1+src.Intn(6)) * 500 * time.Millisecond
		p.add(pick(src, Kill, Delete, Remove, KillNow), uid, Action{Grace: max(p.grace(), 0)})
		if src.Intn(2) == 0 {
			p.add(Update, uid, Action{})
		}
		p.wait(4)
	}
	return p.plan
}

// GenerateUpdateStorm: many overlapping updates of the same pods from
// three clients, ending with kills (coalescing, latest wins, B2, S12).
func GenerateUpdateStorm(src sim.Source) Plan {
	p := newPlanner(src, "update-storm", 3, Faults{SlowRate: 500, MaxDelay: time.Second, ErrorRate: pick(src, 0, 100)})
	uids := p.uids(1 + src.Intn(2))
	for _, uid := range uids {
		p.add(Create, uid, Action{})
	}
	for n := 8 + src.Intn(12); n > 0; n-- {
		p.add(pick(src, Update, Update, Sync, Query), uids[src.Intn(len(uids))], Action{})
		p.wait(1)
	}
	for _, uid := range uids {
		p.add(pick(src, Kill, Delete, Remove), uid, Action{Grace: max(p.grace(), 0)})
		p.add(Update, uid, Action{})
	}
	return p.plan
}

// GenerateGraceShortening: a graceful delete, then shorter graces (force
// delete, eviction overrides) while termination is slow (SPEC §1.7, B12).
func GenerateGraceShortening(src sim.Source) Plan {
	p := newPlanner(src, "grace-shortening", 2, Faults{SlowRate: 800, MaxDelay: 5 * time.Second,
		IgnoreCancel: pick(src, 0, 500), ErrorRate: pick(src, 0, 100)})
	uid := types.UID("a")
	p.add(Create, uid, Action{SpecGrace: int64(pick(src, 30, 60))})
	p.wait(2)
	p.add(Delete, uid, Action{Grace: int64(pick(src, 20, 30, 60))})
	for n := 1 + src.Intn(3); n > 0; n-- {
		p.wait(3)
		p.add(pick(src, Delete, Kill, KillNow), uid, Action{Grace: int64(pick(src, 0, 1, 5, 10, 45)), Evict: src.Intn(3) == 0})
	}
	return p.plan
}

// GenerateStaticFullnameChain: static pods sharing a full name (an edited
// manifest), some killed while waiting (SPEC §1.10, B7, B8, B14).
func GenerateStaticFullnameChain(src sim.Source) Plan {
	p := newPlanner(src, "static-fullname-chain", 1+src.Intn(2), Faults{SlowRate: 400, MaxDelay: 2 * time.Second,
		ErrorRate: pick(src, 0, 100)})
	static := Action{Static: true, Name: "web"}
	uids := p.uids(2 + src.Intn(3))
	for i, uid := range uids {
		p.add(Create, uid, static)
		p.wait(2)
		if i > 0 && src.Intn(2) == 0 {
			p.add(pick(src, Remove, Kill), uids[src.Intn(i+1)], Action{Static: true, Name: "web", Grace: p.grace()})
		}
		if src.Intn(3) == 0 {
			p.add(SyncKnown, "", Action{})
		}
	}
	p.add(Remove, uids[0], static)
	return p.plan
}

// GenerateStaticRestartSameUID: a static manifest removed and restored,
// so the same UID is killed and re-created while terminating (SPEC §1.11,
// B6).
func GenerateStaticRestartSameUID(src sim.Source) Plan {
	p := newPlanner(src, "static-restart-same-uid", 1+src.Intn(2), Faults{SlowRate: 500, MaxDelay: 3 * time.Second,
		ErrorRate: pick(src, 0, 100)})
	static := Action{Static: true, Name: "etcd"}
	p.add(Create, "a", static)
	for n := 1 + src.Intn(2); n > 0; n-- {
		p.wait(3)
		p.add(Remove, "a", static)
		p.wait(2)
		p.add(Create, "a", static)
		if src.Intn(2) == 0 {
			p.wait(2)
			p.add(SyncKnown, "", Action{})
		}
	}
	return p.plan
}

// GenerateOrphanRuntimePods: housekeeping kills runtime-only pods, some of
// them also known from config, racing SyncKnownPods (SPEC §1.9, B3).
func GenerateOrphanRuntimePods(src sim.Source) Plan {
	p := newPlanner(src, "orphan-runtime-pods", 2, Faults{SlowRate: 400, MaxDelay: 2 * time.Second,
		ErrorRate: pick(src, 0, 200)})
	uids := p.uids(2 + src.Intn(2))
	for _, uid := range uids[:1+src.Intn(len(uids)-1)] {
		p.add(Create, uid, Action{})
	}
	for n := 3 + src.Intn(5); n > 0; n-- {
		p.wait(2)
		uid := uids[src.Intn(len(uids))]
		p.add(pick(src, RuntimeKill, RuntimeKill, SyncKnown, Remove, Query), uid, Action{})
	}
	return p.plan
}

// GenerateForceDeleteFailingTerminate: a force-deleted pod whose
// SyncTerminatingPod keeps failing: only the pod workers themselves can
// re-drive it (SPEC §1.12, B11).
func GenerateForceDeleteFailingTerminate(src sim.Source) Plan {
	p := newPlanner(src, "force-delete-failing-terminate", 1, Faults{ErrorRate: pick(src, 500, 800), SlowRate: 200, MaxDelay: time.Second})
	for _, uid := range p.uids(1 + src.Intn(2)) {
		p.add(Create, uid, Action{Static: src.Intn(2) == 0, Name: "db"})
		p.wait(2)
		p.add(pick(src, Remove, Vanish), uid, Action{})
		p.wait(1)
		if src.Intn(2) == 0 {
			p.add(SyncKnown, "", Action{})
		}
	}
	return p.plan
}
