package plan

import (
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/sim"
)

// withKillOptions gives one create, update or sync in two kill options as
// well (Action.KillOpts): a completion Event always, a grace override
// drawn as a kill's, Evict in one of three.
func withKillOptions(src sim.Source, a *Action) {
	if src.Intn(2) != 0 {
		return
	}
	a.KillOpts = true
	a.Grace = pick(src, -1, 0, a.SpecGrace-1, a.SpecGrace+10)
	a.Evict = src.Intn(3) == 0
}

// GenerateAPIShapes draws the shapes of the pod-worker API the other
// families leave out (issue 17, input shapes): updates, syncs and kills that
// carry the pod, its runtime view only, or both; kills with each kill
// option and grace overrides of nil, 0, shorter, equal and longer than the
// spec grace; creates, updates and syncs that carry kill options as well (a
// completion, a grace override, Evict); pods created Pending or Running,
// static or not, UIDs reused after a removal; queries at any moment;
// housekeeping among them. No node: the pod workers alone, driven by 1 to 3
// clients.
func GenerateAPIShapes(src sim.Source) Plan {
	nPods := 2 + src.Intn(2)
	uids := make([]types.UID, nPods)
	shapes := map[types.UID]Action{}
	for i := range uids {
		uids[i] = letterUID(i)
		shapes[uids[i]] = Action{Static: src.Intn(3) == 0, Name: "web", SpecGrace: int64(pick(src, 1, 5, 30)),
			Pending: src.Intn(2) == 0}
	}
	p := Plan{Family: "api-shapes", Clients: 1 + src.Intn(3), Faults: Faults{
		ErrorRate: pick(src, 0, 50), SlowRate: pick(src, 0, 200), MaxDelay: 3 * time.Second}}
	kinds := []ActionKind{Create, Update, Sync, Kill, Kill, KillNow, RuntimeKill, Remove, Delete, Finish, SyncKnown, Query}
	at, created := time.Duration(0), map[types.UID]bool{}
	for n := 6 + src.Intn(15); n > 0; n-- {
		uid := uids[src.Intn(len(uids))]
		a := shapes[uid]
		a.At, a.Client, a.UID, a.Grace = at, src.Intn(p.Clients), uid, -1
		a.Kind = Create
		if created[uid] {
			a.Kind = kinds[src.Intn(len(kinds))]
		}
		created[uid] = true
		switch a.Kind {
		case Update, Sync:
			a.Target = pick(src, "", TargetRunningPod, TargetBoth)
		case Kill:
			a.Target = pick(src, "", "", TargetRunningPod, TargetBoth)
			a.Grace = pick(src, -1, 0, a.SpecGrace-1, a.SpecGrace, a.SpecGrace+10)
			a.Evict = src.Intn(3) == 0
		case KillNow, Delete:
			a.Grace = int64(pick(src, -1, 0, 2, 10))
		case Finish:
			a.Terminal = pick(src, "Succeeded", "Failed")
		case SyncKnown:
			a.UID = ""
		}
		if a.Kind == Create || a.Kind == Update || a.Kind == Sync {
			withKillOptions(src, &a)
		}
		p.Actions = append(p.Actions, a)
		at += time.Duration(src.Intn(4)) * 500 * time.Millisecond
	}
	return p
}

// GenerateErrorShapes: pods created, updated, synced and killed while the
// fake runtime fails often, each error in one of the shapes the pod
// workers' requeue rule tells apart (Faults.ErrorShapes: network not
// ready, BackoffErrors that expired, end within the resync interval or
// beyond it, wrapped, joined or aggregated; SPEC §1.8 step 5, the
// requeue-delay check R1). 1 to 3 pods, 1 or 2 clients, on a node with an
// API server, so that no UID comes back to config once it left:
// upstream-findings GD (a failed kill's retry dropped while its UID is out
// of config, then the UID's return dropped as a restart) needs the retry
// due before housekeeping drives the orphan, which a BackoffError that
// expired makes common. Grace periods stay short so that the settle phase
// covers a backoff clamped to the resync interval (world/settle.go).
func GenerateErrorShapes(src sim.Source) Plan {
	uids, shapes := (&planner{}).uids(1+src.Intn(3)), map[types.UID]Action{}
	for _, uid := range uids {
		shapes[uid] = Action{Name: "web", SpecGrace: int64(pick(src, 1, 5)), CPU: 1, Mem: 1}
	}
	p := Plan{Family: "error-shapes", Clients: 1 + src.Intn(2), Faults: Faults{ErrorRate: pick(src, 300, 500),
		SlowRate: pick(src, 0, 300), MaxDelay: 2 * time.Second, TerminalRate: pick(src, 0, 100), ErrorShapes: true},
		Node: &Node{APIServer: true, EchoLag: pick(src, 0, 500*time.Millisecond)}}
	SwarmActions(src, &p, uids, shapes, 4+src.Intn(9), 4, 500*time.Millisecond)
	return p
}
