package conform

import (
	"math/rand/v2"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
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
