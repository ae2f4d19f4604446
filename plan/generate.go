package plan

import (
	"cmp"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/sim"
)

// Streams are a run's three independent sources of choice.
type Streams struct {
	Plan, Schedule, Faults sim.Source
}

// SeedStreams derives the three streams of seed.
func SeedStreams(seed uint64) Streams {
	return Streams{
		Plan:     sim.NewPCG(sim.Derive(seed, "plan")),
		Schedule: sim.NewPCG(sim.Derive(seed, "schedule")),
		Faults:   sim.NewPCG(sim.Derive(seed, "faults")),
	}
}

// LaneStreams are SeedStreams(seed) whose plan stream keeps the array
// its last plan's actions were built in, for the next plan drawn from it:
// the streams of a caller done with a plan before it draws the next (a
// lane of seeds, run.Lane).
func LaneStreams(seed uint64) Streams {
	st := SeedStreams(seed)
	st.Plan = &keptStream{PCG: st.Plan.(*sim.PCG)}
	return st
}

// keptStream is LaneStreams' plan stream: actions is the array the last
// plan's actions were built in (planner.add).
type keptStream struct {
	*sim.PCG
	actions []Action
}

// actionsArray is an empty list of actions: k's kept array, or a new one
// with room for the actions of most plans (early-kill makes at most 9,
// about 4 on average): one allocation, not one per doubling.
func (k *keptStream) actionsArray() []Action {
	if k == nil || k.actions == nil {
		return make([]Action, 0, 8)
	}
	return k.actions[:0]
}

// keep makes actions the array k keeps (k nil: none is kept).
func (k *keptStream) keep(actions []Action) {
	if k != nil {
		k.actions = actions
	}
}

// ReseedStreams makes st, streams of SeedStreams or LaneStreams, those of
// seed: the same draws as SeedStreams(seed), without making new ones (a
// lane of seeds reuses its streams).
func ReseedStreams(st Streams, seed uint64) {
	st.Plan.(interface{ Reseed(uint64) }).Reseed(sim.Derive(seed, "plan"))
	st.Schedule.(*sim.PCG).Reseed(sim.Derive(seed, "schedule"))
	st.Faults.(*sim.PCG).Reseed(sim.Derive(seed, "faults"))
}

// pick returns one of xs.
func pick[T any](src sim.Source, xs ...T) T { return xs[src.Intn(len(xs))] }

// GenerateSwarm draws a mixed plan: 2 to 4 pods (some static, sharing a
// full name), 4 to 24 actions from 1 to 3 clients, faults at random rates,
// half of the runs on a node with the kubelet-level actors (admission,
// status manager, eviction, node shutdown); each run switches some action
// kinds off. Kubelet restarts have a swarm of their own (GenerateSwarmRestart):
// a restart splits a run into histories, one per kubelet process.
func GenerateSwarm(src sim.Source) Plan { return swarmPlan(src, "swarm", Shutdown) }

// GenerateSwarmRestart is the swarm with kubelet restarts among its
// actions.
func GenerateSwarmRestart(src sim.Source) Plan { return swarmPlan(src, "swarm-restart", Restart) }

// swarmPlan draws a swarm plan whose action kinds go up to last.
func swarmPlan(src sim.Source, family string, last ActionKind) Plan {
	nPods := 2 + src.Intn(3)
	uids := make([]types.UID, nPods)
	shapes := map[types.UID]Action{}
	for i := range uids {
		uids[i] = letterUID(i)
		shapes[uids[i]] = Action{Static: src.Intn(3) == 0, Name: "web", SpecGrace: int64(pick(src, 1, 5, 30)),
			CPU: int64(1 + src.Intn(3)), Mem: int64(1 + src.Intn(3)), Priority: pick[int32](src, 0, 0, 1000, CriticalPriority)}
	}
	p := Plan{Family: family, Clients: 1 + src.Intn(3), Faults: Faults{
		ErrorRate: pick(src, 0, 50, 200), SlowRate: pick(src, 0, 200, 600), MaxDelay: 3 * time.Second,
		IgnoreCancel: pick(src, 0, 500), TerminalRate: pick(src, 0, 100),
	}}
	if src.Intn(2) == 0 {
		p.Node = &Node{CPU: int64(pick(src, 0, 4, 6)), Mem: int64(pick(src, 0, 6)), APIServer: true,
			EchoLag: pick(src, 0, time.Second), ShutdownGroups: []ShutdownGroup{{Priority: 0, Grace: int64(pick(src, 2, 5))},
				{Priority: 1000, Grace: 2}}}
	}
	var kinds []ActionKind
	for k := Create; k <= last; k++ {
		if src.Intn(4) > 0 {
			kinds = append(kinds, k)
		}
	}
	if p.Node != nil && slices.Contains(kinds, Restart) {
		// A pod running before a restart and rejected at its re-admission
		// keeps its containers, and if deleted stays in the API for ever:
		// housekeeping kills neither a running pod for its deletion nor a
		// runtime pod that is in config. An upstream gap of the kubelet, not
		// of the pod workers: runs with restarts leave the node unbounded.
		p.Node.CPU, p.Node.Mem = 0, 0
	}
	swarmActionsOf(src, &p, uids, shapes, 4+src.Intn(21), 4, 500*time.Millisecond, kinds)
	return p
}

// classicKinds are the pod-worker clients' action kinds, before the
// kubelet-level actors.
var classicKinds = []ActionKind{Create, Update, Sync, Delete, Remove, Kill, KillNow, RuntimeKill, Finish, SyncKnown, Query, Vanish}

// SwarmActions appends n mixed actions of the classic kinds over uids to
// p: each pod is created first, then any action kind with its options;
// consecutive actions are 0 to gaps-1 steps of step apart.
func SwarmActions(src sim.Source, p *Plan, uids []types.UID, shapes map[types.UID]Action, n, gaps int, step time.Duration) {
	swarmActionsOf(src, p, uids, shapes, n, gaps, step, classicKinds)
}

// swarmActionsOf is SwarmActions over the given kinds (none: creates only).
func swarmActionsOf(src sim.Source, p *Plan, uids []types.UID, shapes map[types.UID]Action, n, gaps int, step time.Duration,
	kinds []ActionKind) {
	at := time.Duration(0)
	created := map[types.UID]bool{}
	reuse := NewUIDReuse() // API objects deleted or removed, creates pending (NewObjectReusesUID)
	for ; n > 0; n-- {
		uid := uids[src.Intn(len(uids))]
		a := shapes[uid]
		a.At, a.Client, a.UID, a.Grace = at, src.Intn(p.Clients), uid, -1
		if !created[uid] || len(kinds) == 0 {
			a.Kind, created[uid] = Create, true
		} else {
			a.Kind = kinds[src.Intn(len(kinds))]
		}
		switch a.Kind {
		case Delete, Kill, KillNow, Evict:
			a.Grace = int64(pick(src, -1, 0, 2, 10))
			a.Evict = (a.Kind == Kill || a.Kind == KillNow) && src.Intn(2) == 0
		case Finish:
			a.Terminal = pick(src, "Succeeded", "Failed")
		case SyncKnown, Shutdown, Restart:
			a.UID = ""
		}
		if !NewObjectReusesUID(p.Node, a, reuse) {
			p.Actions = append(p.Actions, a)
		}
		at += time.Duration(src.Intn(gaps)) * step
	}
}

// NewObjectReusesUID reports whether a, the next action drawn for a plan
// on node, must be dropped because it and a Create of its UID could make a
// new API pod object under the UID of one deleted or removed before it: an
// API server assigns every new object a fresh UID, so no plan with an API
// server may draw that. r keeps what it needs as actions pass (only those
// it keeps must be passed on: call it once per action, in plan order).
//
// Plan order is not the order the actions run in: each client runs its own
// actions in plan order, but two clients' actions at one instant run in
// the order the schedule picks, and a client waiting in a KillPodNow runs
// its next actions late (by up to the wait's timeout, max(10 s, 1.5 ×
// grace), the override's grace else the spec's). So a Create after a
// Delete, Remove or Vanish of its UID in plan order is dropped, and so is a
// Delete, Remove or Vanish drawn after two Creates of its UID (one to make
// the object it may end, one to make another) when one of them is on
// another client and may run at its time or later. The object may still exist
// when the Create arrives (then config merges it into an UPDATE), but the
// generator cannot know; it drops the action either way. Static pods keep
// their UID across re-creation (their UID comes from the manifest), and
// without an API server a UID is only the pod workers' key, so both may
// reuse one (docs/guided.md, "Determinism and false alarms").
func NewObjectReusesUID(node *Node, a Action, r *UIDReuse) bool {
	if node == nil || !node.APIServer {
		return false
	}
	late := max(r.late[a.Client], a.At) // the latest a may run
	if !a.Static {
		switch a.Kind {
		case Delete, Remove, Vanish:
			creates := r.creates[a.UID]
			if len(creates) > 1 && slices.ContainsFunc(creates, func(c pendingCreate) bool { return c.client != a.Client && c.late >= a.At }) {
				return true
			}
			r.gone[a.UID] = true
		case Create:
			if r.gone[a.UID] {
				return true
			}
			r.creates[a.UID] = append(r.creates[a.UID], pendingCreate{client: a.Client, late: late})
		}
	}
	if a.Kind == KillNow {
		late += killNowWait(a)
	}
	r.late[a.Client] = late
	return false
}

// UIDReuse is what NewObjectReusesUID keeps of the actions drawn so far:
// the UIDs whose API object a Delete, Remove or Vanish ended, the Creates
// and the latest each may run, and the latest each client's next action
// may run (behind its KillPodNow waits).
type UIDReuse struct {
	gone    map[types.UID]bool
	creates map[types.UID][]pendingCreate
	late    map[int]time.Duration
}

type pendingCreate struct {
	client int
	late   time.Duration
}

// NewUIDReuse is an empty UIDReuse, for a plan's first action.
func NewUIDReuse() *UIDReuse {
	return &UIDReuse{gone: map[types.UID]bool{}, creates: map[types.UID][]pendingCreate{}, late: map[int]time.Duration{}}
}

// killNowWait bounds how long a KillNow keeps its client: killPodNow's
// timeout, max(10 s, grace + grace/2) in whole seconds, grace the
// override if given, else the spec's.
func killNowWait(a Action) time.Duration {
	g := a.SpecGrace
	if a.Grace >= 0 {
		g = a.Grace
	}
	return time.Duration(max(g+g/2, 10)) * time.Second
}

// Family is a named scenario generator and the coverage marks it exists to
// reach.
type Family struct {
	Name     string
	Generate func(sim.Source) Plan
	Marks    []string
	// MinSeeds is the shortest sweep (seeds under one strategy, from any
	// start) that must reach every mark of Marks: `simrun run` and `simrun
	// gate` fail when a mark stays at zero in a sweep at least this long,
	// and warn in a shorter one (Unreached). 0 means DefaultMinSeeds.
	MinSeeds uint64
}

// DefaultMinSeeds is MinSeeds when a family declares none.
const DefaultMinSeeds = 200

// MinimumSeeds is f.MinSeeds, or DefaultMinSeeds when unset.
func (f Family) MinimumSeeds() uint64 {
	if f.MinSeeds == 0 {
		return DefaultMinSeeds
	}
	return f.MinSeeds
}

// Unreached lists, in declaration order, the marks of f that reached counts
// at zero: a generator that misses its point when the sweep had at least
// MinimumSeeds seeds, too short a sweep to say otherwise.
func (f Family) Unreached(reached func(mark string) uint64) []string {
	var out []string
	for _, m := range f.Marks {
		if reached(m) == 0 {
			out = append(out, m)
		}
	}
	return out
}

// Families lists every scenario family, by name: the kubelet's and the
// virtual-kubelet pod controller's (VKFamilies).
func Families() []Family {
	fams := append(KubeletFamilies(), VKFamilies()...)
	slices.SortFunc(fams, func(a, b Family) int { return cmp.Compare(a.Name, b.Name) })
	return fams
}

// KubeletFamilies lists the kubelet's scenario families (the simulated
// kubelet world's and the real kubelet's), by name.
func KubeletFamilies() []Family {
	fams := []Family{
		{Name: "swarm", Generate: GenerateSwarm, Marks: []string{MarkKillDuringSyncPod, MarkEarlyKill,
			MarkNaturalCompletion, MarkRuntimePodKilled, MarkCompletionFired, MarkSyncKnownDuringSync}},
		{Name: "early-kill", Generate: GenerateEarlyKill, Marks: []string{MarkEarlyKill, MarkCompletionFired}},
		{Name: "kill-during-create", Generate: GenerateKillDuringCreate, Marks: []string{MarkKillDuringSyncPod,
			MarkCancelDuringSyncPod, MarkCompletionFired}},
		{Name: "update-storm", Generate: GenerateUpdateStorm, Marks: []string{MarkUpdateWhileTerminating, MarkKillDuringSyncPod}},
		// killnow-timed-out is rare (0.7–1 % of seeds, measured over 1,000
		// seeds of each strategy): 1,500 seeds miss it with odds ~1e-5.
		{Name: "grace-shortening", Generate: GenerateGraceShortening, Marks: []string{MarkGraceShortened, MarkKillNowTimedOut},
			MinSeeds: 1500},
		{Name: "static-fullname-chain", Generate: GenerateStaticFullnameChain, Marks: []string{MarkStaticExcluded,
			MarkStaticWaiterKilled}},
		{Name: "static-restart-same-uid", Generate: GenerateStaticRestartSameUID, Marks: []string{MarkRestartAfterFinish}},
		{Name: "orphan-runtime-pods", Generate: GenerateOrphanRuntimePods, Marks: []string{MarkRuntimePodKilled,
			MarkSyncKnownDuringSync}},
		{Name: "force-delete-failing-terminate", Generate: GenerateForceDeleteFailingTerminate, Marks: []string{
			MarkTerminatingRetried, MarkOrphanDriven}},
		{Name: "swarm-restart", Generate: GenerateSwarmRestart, Marks: []string{MarkRestartDuringSync, MarkRestartShortcut,
			MarkRestartOrphanKilled, MarkKillDuringSyncPod, MarkCompletionFired}},
		{Name: "rejected-admission", Generate: GenerateRejectedAdmission, Marks: []string{MarkAdmissionRejected,
			MarkAdmittedAfterRelease, MarkRejectedDeletedGone, MarkTerminalWriteDeferred}},
		{Name: "node-shutdown", Generate: GenerateNodeShutdown, Marks: []string{MarkShutdownKilled,
			MarkShutdownAdmissionClosed, MarkShutdownGroupGraceOver, MarkCompletionFired}},
		{Name: "shutdown-cancel", Generate: GenerateShutdownCancel, Marks: []string{MarkShutdownCancelled,
			MarkCancelDuringShutdown, MarkAdmittedAfterCancel, MarkShutdownAgain, MarkShutdownKilled,
			MarkShutdownAdmissionClosed}},
		{Name: "shutdown-groups", Generate: GenerateShutdownGroups, Marks: []string{MarkShutdownOffGroup,
			MarkShutdownKilled, MarkShutdownGroupGraceOver, MarkShutdownAdmissionClosed}},
		{Name: "shutdown-restart", Generate: GenerateShutdownRestart, Marks: []string{MarkRestartInShutdown,
			MarkRestartShutdownRejected, MarkShutdownKilled, MarkShutdownAdmissionClosed}},
		{Name: "eviction-wait", Generate: GenerateEvictionWait, Marks: []string{MarkEvictionCleanupWaited,
			MarkEvictionSpared, MarkCompletionFired}},
		{Name: "kubelet-restart-terminal-pods", Generate: GenerateKubeletRestartTerminalPods, Marks: []string{
			MarkRestartShortcut, MarkRestartDuringSync, MarkRestartOrphanKilled, MarkRestartDeletedGone}},
		{Name: "recreate-same-name", Generate: GenerateRecreateSameName, Marks: []string{MarkNameTaken,
			MarkRecreatedInGrace, MarkGraceReaped}},
		// error-backoff-clamped is its rarest mark, reached by about 10 % of
		// seeds (255 and 276 of 2,500 under random and PCT): 200 seeds miss
		// it with odds ~1e-9.
		{Name: "error-shapes", Generate: GenerateErrorShapes, Marks: []string{MarkErrNetworkNotReady, MarkErrBackoffExpired,
			MarkErrBackoffPending, MarkErrBackoffClamped, MarkErrWrapped, MarkErrJoined, MarkErrAggregate,
			MarkErrKubeAggregate, MarkErrEarliestOfMany, MarkTerminatingRetried}},
		{Name: "api-shapes", Generate: GenerateAPIShapes, Marks: []string{MarkEarlyKill, MarkKillDuringSyncPod,
			MarkRuntimePodKilled, MarkCompletionFired, MarkUpdateWhileTerminating, MarkRestartAfterFinish}},
	}
	slices.SortFunc(fams, func(a, b Family) int { return cmp.Compare(a.Name, b.Name) })
	return fams
}

// FamilyNamed is the family called name.
func FamilyNamed(name string) (Family, bool) {
	for _, f := range Families() {
		if f.Name == name {
			return f, true
		}
	}
	return Family{}, false
}
