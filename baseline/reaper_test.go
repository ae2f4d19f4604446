package baseline

import (
	"time"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/world"
	"k8s.io/apimachinery/pkg/types"
)

// The API server's names and grace reaper in the baseline (reaper.go on the
// real runtime), so that V2 has a baseline row like the other K entries.
// Under Node.UniqueNames a create of a name another API object holds is
// refused and a delete of an object not in the API does nothing; under
// Node.ForceDeleteAfterGrace a client's delete queues a forced delete for
// when the object's grace has expired, keyed by name and UID (V2: by name
// only, and never forgotten), run by a kubelet actor that sleeps until the
// deadline (so the settle phase waits for it). K6 is checked as the World
// checks it (oracle/kubelet/identity.go): at every removal of an object from
// the API, against the check's own record of the delete requests, made at
// the client's delete.

// baseAPI is the API server's side of names and forced deletes, guarded by
// baseWorld.mu. It hangs on the baseline's kubelet only because that exists
// exactly when a plan has a Node; the baseline has no kubelet restarts, so
// it never outlives it.
type baseAPI struct {
	// reapDue is the reaper's queue: each key's deadline (virtual time).
	reapDue map[world.ReapKey]time.Time
	// asks is K6's record: the delete requests of each UID's current object.
	asks map[types.UID]baseDeleteAsk
}

// baseDeleteAsk is what K6 knows of the delete requests of one object.
type baseDeleteAsk struct {
	object      int // basePod.object of the object deleted
	name        string
	at, expires time.Time // the first request, and the earliest end of grace
	grace       int64
}

// apiRefusesCreate: under Node.UniqueNames another object in the API holds
// the name of the pod a creates (AlreadyExists: the create does nothing).
func (w *baseWorld) apiRefusesCreate(a plan.Action) bool {
	if !w.kube.node.APIServer || !w.kube.node.UniqueNames || a.Static {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	holder := w.nameHolder(a.PodName())
	return holder != "" && holder != a.UID
}

// nameHolder is the UID of the non-static object in the API named name (""
// if none); the caller holds mu.
func (w *baseWorld) nameHolder(name string) types.UID {
	for _, uid := range sortedUIDsOf(w.pods) {
		if p := w.pods[uid]; p.inAPI && !p.action.Static && p.action.PodName() == name {
			return uid
		}
	}
	return ""
}

// apiDeleted is the API server's side of a client's delete of p's object
// with grace g: K6 notes the request, and the reaper queues its forced
// delete. The caller holds mu.
func (w *baseWorld) apiDeleted(p *basePod, g int64) {
	if !w.kube.node.APIServer {
		return
	}
	api, now := &w.kube.api, w.clk.Now()
	expires := now.Add(time.Duration(g) * time.Second)
	if r, ok := api.asks[p.action.UID]; ok && r.object == p.object {
		r.expires = minTime(r.expires, expires)
		api.asks[p.action.UID] = r
	} else {
		if api.asks == nil {
			api.asks = map[types.UID]baseDeleteAsk{}
		}
		api.asks[p.action.UID] = baseDeleteAsk{object: p.object, name: p.action.PodName(), at: now, expires: expires, grace: g}
	}
	w.queueReap(p, expires.Add(world.ReapSlack))
}

// queueReap queues the forced delete of p's object for at (an earlier
// deadline wins) and starts the actor that waits for it. The caller holds
// mu.
func (w *baseWorld) queueReap(p *basePod, at time.Time) {
	api := &w.kube.api
	if !w.kube.node.ForceDeleteAfterGrace || !p.inAPI || p.action.Static {
		return
	}
	k := w.reapKeyOf(p)
	if due, queued := api.reapDue[k]; queued && !due.After(at) {
		return
	}
	if api.reapDue == nil {
		api.reapDue = map[world.ReapKey]time.Time{}
	}
	api.reapDue[k] = at
	w.goActorLocked("reaper", func() {
		time.Sleep(at.Sub(w.clk.Now()) / baselineScale)
		w.mu.Lock()
		defer w.mu.Unlock()
		if due, queued := api.reapDue[k]; queued && due.Equal(at) {
			delete(api.reapDue, k)
			w.reap(k)
		}
	})
}

// reapKeyOf is p's key in the reaper's queue: name and UID, or (V2) the
// name alone.
func (w *baseWorld) reapKeyOf(p *basePod) world.ReapKey {
	return world.ReapKeyFor(p.action, w.kube.bugs.V2ReaperKeyedByName)
}

// reap is one forced delete with the UID as precondition: the object of
// that name and UID, if still in the API. V2 deletes whatever object holds
// the name now. The caller holds mu.
func (w *baseWorld) reap(k world.ReapKey) {
	uid := k.UID
	if w.kube.bugs.V2ReaperKeyedByName {
		uid = w.nameHolder(k.Name)
	}
	p := w.pods[uid]
	if p == nil || !p.inAPI || p.action.PodName() != k.Name {
		return
	}
	w.checkRemoved(p, "grace reaper", true)
	p.inAPI = false
	w.leftAPI(p)
	w.echoLater(p)
}

// leftAPI: p's object left the API; the reaper forgets its key (V2 keeps
// it). The caller holds mu.
func (w *baseWorld) leftAPI(p *basePod) {
	if w.kube != nil && !w.kube.bugs.V2ReaperKeyedByName {
		delete(w.kube.api.reapDue, w.reapKeyOf(p))
	}
}

// checkRemoved is K6 at a removal of p's object from the API by an actor
// (by names it): a delete was requested for that very object, and a forced
// delete comes only after its grace expired. The caller holds mu.
func (w *baseWorld) checkRemoved(p *basePod, by string, forced bool) {
	uid, name := p.action.UID, p.action.PodName()
	r, ok := w.kube.api.asks[uid]
	switch {
	case !ok || r.object != p.object:
		w.checks.fail("K6", "the %s removed pod %s (uid %s) from the API, but no delete was requested for that object", by, name, uid)
	case forced && w.clk.Now().Before(r.expires):
		w.checks.fail("K6", "the %s force-deleted pod %s (uid %s) before its deletion grace (%ds) expired", by, name, uid, r.grace)
	}
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}
