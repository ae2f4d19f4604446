package check

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/podsim/podsim/model"
	"github.com/podsim/podsim/model/ops"
)

// witnessGen produces legal histories with WorkerStep markers, the way the
// simulation records them: it keeps one concrete state per part (the
// object's actual state, not a set of possibilities) and lets a worker run a
// critical section only by emitting a marker, so every hidden step happens
// at a marker. Pods are those of generator (p0–p3 static in pairs).
type witnessGen struct {
	rng      *rand.Rand
	pods     []ops.Pod
	parts    map[string]model.State
	ops      []ops.Op
	versions map[string]int
	owner    map[int]string
	nextID   int
}

func newWitnessGen(seed uint64, pods int) *witnessGen {
	g := &witnessGen{rng: rand.New(rand.NewPCG(seed, 2)), parts: map[string]model.State{},
		versions: map[string]int{}, owner: map[int]string{}}
	for i := range pods {
		p := pod(fmt.Sprintf("p%d", i), 0)
		if i < 4 && pods > 1 {
			p = staticPod(p.UID, fmt.Sprintf("web%d", i/2), 0)
		}
		g.pods = append(g.pods, p)
		g.parts[g.part(p)] = model.NewState()
	}
	return g
}

func (g *witnessGen) part(p ops.Pod) string {
	if p.Static {
		return "name/" + p.FullName()
	}
	return "uid/" + p.UID
}

// run returns a history of n operations plus the markers between them.
func (g *witnessGen) run(n int) []ops.Op {
	for observed := 0; observed < n; {
		if g.step() {
			observed++
		}
	}
	return g.ops
}

// emit applies an operation to one part, keeps one of the possible next
// states (the one that actually happened) and records the operation.
func (g *witnessGen) emit(key string, in ops.Input, out ops.Output) {
	next, err := model.Step(g.parts[key], in, out)
	if err != nil {
		panic(fmt.Sprintf("witness generator produced an illegal op %s: %v", ops.Describe(in, out), err))
	}
	g.parts[key] = next[g.rng.IntN(len(next))]
	g.ops = append(g.ops, ops.Op{Input: in, Output: out})
}

// step emits one operation; it reports whether it was an observed one (not
// a marker).
func (g *witnessGen) step() bool {
	p := g.pods[g.rng.IntN(len(g.pods))]
	key := g.part(p)
	s := g.parts[key]
	if len(s.Due) > 0 {
		if o := s.Due[0]; o.ID == 0 {
			g.emit(key, ops.CancelFired{UID: o.UID}, nil)
		} else {
			g.emit(key, ops.CompletionFired(o), nil)
		}
		return true
	}
	switch r := g.rng.IntN(100); {
	case r < 45:
		return g.worker(key, s, p.UID)
	case r < 70:
		g.update(key, p)
	case r < 92:
		kind := ops.QueryKind(g.rng.IntN(int(ops.IsPodForMirrorPodTerminatingByFullName) + 1))
		in := ops.Query{Kind: kind, UID: p.UID, FullName: p.FullName()}
		g.emit(key, in, s.Answer(in))
	case r < 95 && len(s.Fired) > 0:
		id := s.Fired[g.rng.IntN(len(s.Fired))]
		g.emit(key, ops.KillPodNowDone{UID: g.owner[id], ID: id}, yes)
	case r < 97:
		g.syncKnownPods()
	default:
		g.update(key, p)
	}
	return true
}

// worker lets the worker of uid act: fail its status read after a take,
// enter or leave its callback, or run a critical section (a marker: take,
// acknowledge, complete, or a wake-up with nothing to do).
func (g *witnessGen) worker(key string, s model.State, uid string) bool {
	r, ok := s.Record(uid)
	if !ok {
		g.update(key, g.pods[slices.IndexFunc(g.pods, func(p ops.Pod) bool { return p.UID == uid })])
		return true // no worker yet
	}
	f := r.Flight
	terminating := f.Fn == ops.SyncTerminatingPod || f.Fn == ops.SyncTerminatingRuntimePod
	switch {
	case f.Stage == model.Taken && !f.Acked && !f.Content.RuntimeOnly && g.rng.IntN(10) == 0:
		g.emit(key, ops.StatusReadFailed{UID: uid}, nil)
		return true
	case f.Stage == model.Taken && (f.Acked || (!terminating && g.rng.IntN(5) > 0)):
		grace := f.AckGrace
		if g.rng.IntN(2) == 0 && f.Fn == ops.SyncTerminatingPod {
			grace = f.TakeGrace
		}
		g.emit(key, ops.SyncBegin{UID: uid, Fn: f.Fn, Type: f.Content.Type, Version: f.Content.Pod.Version, Grace: grace}, nil)
		return true
	case f.Stage == model.Begun:
		outcome := []ops.Outcome{ops.OK, ops.OK, ops.OK, ops.OK, ops.OK, ops.OK, ops.Failed, ops.Canceled}[g.rng.IntN(8)]
		g.emit(key, ops.SyncEnd{UID: uid, Fn: f.Fn, Outcome: outcome, IsTerminal: g.rng.IntN(10) == 0}, nil)
		return true
	}
	g.emit(key, ops.WorkerStep{UID: uid}, nil)
	return false
}

func (g *witnessGen) update(key string, p ops.Pod) {
	g.versions[p.UID]++
	p.Version = g.versions[p.UID]
	types := []ops.UpdateType{ops.Create, ops.Create, ops.Update, ops.Update, ops.Update, ops.Sync, ops.Sync, ops.Sync, ops.Kill, ops.Kill}
	u := ops.UpdatePod{Type: types[g.rng.IntN(len(types))], Pod: p, Cache: ops.CacheBusy}
	switch g.rng.IntN(20) {
	case 0:
		u.Pod = deleting(p, int64(g.rng.IntN(10)))
	case 1:
		u.Pod, u.Cache = phase(p, ops.PhaseSucceeded), ops.CacheUnknown
	case 2:
		u = runtimeKill(p.UID)
	}
	if u.Type == ops.Kill && g.rng.IntN(3) == 0 {
		g.nextID++
		u.Kill.CompletionID, g.owner[g.nextID] = g.nextID, p.UID
	}
	if u.Type == ops.Kill && g.rng.IntN(4) == 0 {
		u.Kill.GraceOverride, u.Kill.HasGraceOverride = int64(g.rng.IntN(20)), true
	}
	g.emit(key, u, nil)
}

// syncKnownPods emits one SyncKnownPods whose result is what every part
// reports, and steps every part.
func (g *witnessGen) syncKnownPods() {
	var desired []string
	for _, p := range g.pods {
		if g.rng.IntN(5) != 0 {
			desired = append(desired, p.UID)
		}
	}
	keys := slices.Sorted(maps.Keys(g.parts))
	var result ops.KnownPods
	for _, key := range keys {
		s := g.parts[key]
		s = s.Clone()
		if len(s.Due) > 0 {
			return // an obligation first; try again later
		}
		result = append(result, s.KnownPods(desired)...)
	}
	slices.SortFunc(result, func(a, b ops.KnownPod) int { return strings.Compare(a.UID, b.UID) })
	in := ops.SyncKnownPods{Desired: desired}
	for _, key := range keys {
		uids := map[string]bool{}
		for _, p := range g.pods {
			if g.part(p) == key {
				uids[p.UID] = true
			}
		}
		pin, pout := restrictKnown(in, result, uids)
		next, err := model.Step(g.parts[key], pin, pout)
		if err != nil {
			panic(fmt.Sprintf("witness generator produced an illegal SyncKnownPods: %v", err))
		}
		g.parts[key] = next[0]
	}
	g.ops = append(g.ops, ops.Op{Input: in, Output: result})
}

// withoutMarkers drops the WorkerStep markers of a history.
func withoutMarkers(list []ops.Op) []ops.Op {
	return slices.DeleteFunc(slices.Clone(list), func(op ops.Op) bool { return isWorkerStep(op.Input) })
}
