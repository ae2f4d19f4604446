package conform

import (
	"math/rand/v2"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/plan"
)

// TestFirstIsTheMap: the first actions kept by UID index (firsts, noted's
// ActionBegins) answer as the map of UIDs to the first action seen that
// they replace: the first action begun with a UID wins, a UID never begun
// or not in the plan is the zero Action, and a reused checker forgets the
// run before. Random plans of up to six UIDs, begun in random order.
func TestFirstIsTheMap(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 19))
	names := []types.UID{"a", "b", "c", "d", "e", "f"}
	var c *checker
	for round := range 300 {
		p := plan.Plan{Clients: 1 + r.IntN(3)}
		for i := range 1 + r.IntN(10) {
			a := plan.Action{Client: r.IntN(p.Clients), Kind: plan.Create, UID: names[r.IntN(len(names))],
				SpecGrace: int64(i), Priority: int32(round)}
			if r.IntN(5) == 0 {
				a.UID = ""
			}
			p.Actions = append(p.Actions, a)
		}
		if c == nil || r.IntN(2) == 0 {
			c = New(p).(*checker)
		} else {
			c = Reuse(c, p).(*checker)
		}
		want, v := map[types.UID]plan.Action{}, newView(false)
		for range 2 * len(p.Actions) {
			g := clientName(nil, r.IntN(p.Clients))
			cl, _ := c.clients.Get(g)
			if cl == nil || cl.begun == len(cl.actions) {
				continue
			}
			a := cl.actions[cl.begun]
			c.Observe(v, &history.Event{Kind: history.Noted, Goroutine: g, Note: history.ActionBegins{}})
			c.Observe(v, &history.Event{Kind: history.Noted, Goroutine: g, Note: history.ActionDone{}})
			if _, ok := want[a.UID]; !ok && a.UID != "" {
				want[a.UID] = a
			}
		}
		for _, uid := range append(names, "g", "") {
			w, ok := want[uid]
			if got := c.first(uid); got != w || (c.firstOf(uid) != nil) != ok {
				t.Fatalf("round %d, plan %v: first(%q) = %v (found %v), want the map's %v (found %v)", round, p.Actions,
					uid, got, c.firstOf(uid) != nil, w, ok)
			}
			if f := c.shapeOf(plan.Action{UID: uid, Name: "x"}); ok && f != w || !ok && f.Name != "x" {
				t.Fatalf("round %d: shapeOf(%q) = %v, want %v (found %v)", round, uid, f, w, ok)
			}
		}
	}
}

// TestVersionsAndCreatedAreTheMaps: the versions and creates kept by UID
// index answer as the maps of UIDs they replace, for every UID the plan
// names: the highest version of an UpdatePod that is not runtime-only, and
// whether a create of the UID reached the pod workers since the last
// Restarted. UpdatePods of UIDs the plan does not name are dropped (no one
// reads them). Random streams of calls, restarts and reuses.
func TestVersionsAndCreatedAreTheMaps(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 21))
	names := []string{"a", "b", "c", "d", "x"}
	var c *checker
	for round := range 200 {
		p := plan.Plan{Clients: 1}
		for range 1 + r.IntN(4) {
			p.Actions = append(p.Actions, plan.Action{Kind: plan.Create, UID: types.UID(names[r.IntN(4)])})
		}
		if c == nil || r.IntN(2) == 0 {
			c = New(p).(*checker)
		} else {
			c = Reuse(c, p).(*checker)
		}
		versions, created, v := map[types.UID]int{}, map[types.UID]bool{}, newView(false)
		for id := range 30 {
			if r.IntN(8) == 0 {
				c.Observe(v, &history.Event{Kind: history.Restarted, Goroutine: "driver"})
				clear(created)
				continue
			}
			u := ops.UpdatePod{Type: ops.UpdateType(r.IntN(4)), RuntimeOnly: r.IntN(4) == 0,
				Pod: ops.Pod{UID: names[r.IntN(len(names))], Version: r.IntN(9) - 2}}
			c.Observe(v, &history.Event{Kind: history.ClientCall, ID: id, Goroutine: "worker", Input: u})
			if uid := types.UID(u.Pod.UID); !u.RuntimeOnly {
				versions[uid] = max(versions[uid], u.Pod.Version)
				created[uid] = created[uid] || u.Type == ops.Create
			}
			for i, uid := range c.uids {
				if c.version(uid) != versions[uid] || c.created[i] != created[uid] {
					t.Fatalf("round %d, after %v: uid %s version %d created %v, want the maps' %d %v", round, u, uid,
						c.version(uid), c.created[i], versions[uid], created[uid])
				}
			}
		}
	}
}
