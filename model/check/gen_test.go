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

// generator produces legal sequential histories by driving the model
// itself: every observation it emits is read off one possible state, so
// each operation is legal by construction. Pods "p0".."pN" are non-static
// except p0–p3, which are static in pairs sharing a full name (so two parts
// hold two UIDs). It keeps one state set per part, as Replay does.
type generator struct {
	rng      *rand.Rand
	pods     []ops.Pod
	parts    map[string][]model.State // part key → closed state set
	ops      []ops.Op
	versions map[string]int
	owner    map[int]string // completion ID → UID
	nextID   int
}

func newGenerator(seed uint64, pods int) *generator {
	g := &generator{rng: rand.New(rand.NewPCG(seed, 1)), parts: map[string][]model.State{},
		versions: map[string]int{}, owner: map[int]string{}}
	for i := range pods {
		p := pod(fmt.Sprintf("p%d", i), 0)
		if i < 4 {
			p = staticPod(p.UID, fmt.Sprintf("web%d", i/2), 0)
		}
		g.pods = append(g.pods, p)
		if _, ok := g.parts[g.part(p)]; !ok {
			g.parts[g.part(p)] = []model.State{model.NewState()}
		}
	}
	return g
}

func (g *generator) part(p ops.Pod) string {
	if p.Static {
		return "name/" + p.FullName()
	}
	return "uid/" + p.UID
}

// emit applies an operation to one part and records it.
func (g *generator) emit(part string, in ops.Input, out ops.Output) {
	next, err := model.Next(g.parts[part], in, out)
	if err != nil {
		panic(fmt.Sprintf("generator produced an illegal op %s: %v", ops.Describe(in, out), err))
	}
	g.parts[part] = next
	g.ops = append(g.ops, ops.Op{Input: in, Output: out})
}

func (g *generator) run(n int) []ops.Op {
	for len(g.ops) < n {
		g.step()
	}
	return g.ops
}

func (g *generator) step() {
	p := g.pods[g.rng.IntN(len(g.pods))]
	key := g.part(p)
	states := g.parts[key]
	s := states[g.rng.IntN(len(states))]
	if len(s.Due) > 0 {
		o := s.Due[0]
		if o.ID == 0 {
			g.emit(key, ops.CancelFired{UID: o.UID}, nil)
		} else {
			g.emit(key, ops.CompletionFired(o), nil)
		}
		return
	}
	switch r := g.rng.IntN(100); {
	case r < 40 && g.worker(key, s):
	case r < 65:
		g.update(key, p)
	case r < 90:
		kind := ops.QueryKind(g.rng.IntN(int(ops.IsPodForMirrorPodTerminatingByFullName) + 1))
		in := ops.Query{Kind: kind, UID: p.UID, FullName: p.FullName()}
		g.emit(key, in, s.Answer(in))
	case r < 93 && len(s.Fired) > 0:
		id := s.Fired[g.rng.IntN(len(s.Fired))]
		g.emit(key, ops.KillPodNowDone{UID: g.owner[id], ID: id}, yes)
	case r < 96:
		g.syncKnownPods()
	default:
		g.update(key, p)
	}
}

// worker emits the entry or return of a callback some pod of the part may
// be at in state s; false if none is.
func (g *generator) worker(key string, s model.State) bool {
	for _, uid := range slices.Sorted(maps.Keys(s.Records)) {
		f := s.Records[uid].Flight
		switch {
		case f.Stage == model.Taken && (f.Acked || (f.Fn != ops.SyncTerminatingPod && f.Fn != ops.SyncTerminatingRuntimePod)):
			g.emit(key, ops.SyncBegin{UID: uid, Fn: f.Fn, Type: f.Content.Type, Version: f.Content.Pod.Version, Grace: f.AckGrace}, nil)
			return true
		case f.Stage == model.Begun:
			outcome := []ops.Outcome{ops.OK, ops.OK, ops.OK, ops.OK, ops.OK, ops.OK, ops.Failed, ops.Canceled}[g.rng.IntN(8)]
			g.emit(key, ops.SyncEnd{UID: uid, Fn: f.Fn, Outcome: outcome, IsTerminal: g.rng.IntN(10) == 0}, nil)
			return true
		}
	}
	return false
}

func (g *generator) update(key string, p ops.Pod) {
	g.versions[p.UID]++
	p.Version = g.versions[p.UID]
	types := []ops.UpdateType{ops.Create, ops.Create, ops.Update, ops.Update, ops.Update, ops.Sync, ops.Sync, ops.Sync, ops.Kill, ops.Kill}
	u := ops.UpdatePod{Type: types[g.rng.IntN(len(types))], Pod: p, Cache: ops.CacheBusy}
	switch g.rng.IntN(20) {
	case 0:
		u.Pod = deleting(p, int64(g.rng.IntN(10)))
	case 1:
		u.Pod = phase(p, ops.PhaseSucceeded)
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

// syncKnownPods emits one SyncKnownPods: its result is the union of what
// one possible state of each part reports.
func (g *generator) syncKnownPods() {
	var desired []string
	for _, p := range g.pods {
		if g.rng.IntN(5) != 0 {
			desired = append(desired, p.UID)
		}
	}
	keys := slices.Sorted(maps.Keys(g.parts))
	var result ops.KnownPods
	for _, key := range keys {
		states := g.parts[key]
		s := states[g.rng.IntN(len(states))].Clone()
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
		next, err := model.Next(g.parts[key], pin, pout)
		if err != nil {
			panic(fmt.Sprintf("generator produced an illegal SyncKnownPods: %v", err))
		}
		g.parts[key] = next
	}
	g.ops = append(g.ops, ops.Op{Input: in, Output: result})
}
