package conform

import (
	"reflect"
	"testing"

	"github.com/podsim/podsim/plan"
)

// TestReuseClientsAreFresh: a checker reused for another plan (Reuse)
// holds the clients New would make for it, with their actions in order,
// none begun, whatever the plan before held: its client records and names
// are reused emptied, never with the last run's actions or progress.
func TestReuseClientsAreFresh(t *testing.T) {
	big := plan.Plan{Clients: 3, Actions: []plan.Action{
		{Client: 0, UID: "a", Kind: plan.Create}, {Client: 1, UID: "b", Kind: plan.Create},
		{Client: 2, UID: "c", Kind: plan.Create}, {Client: 0, UID: "a", Kind: plan.Delete}}}
	small := plan.Plan{Clients: 2, Actions: []plan.Action{
		{Client: 1, UID: "d", Kind: plan.Create}, {Client: 0, UID: "e", Kind: plan.Create}}}
	c := New(big).(*checker)
	for _, cl := range c.clients.Map() {
		cl.begun, cl.cur = 1, &action{}
	}
	for _, p := range []plan.Plan{small, big, small} {
		reused, fresh := Reuse(c, p).(*checker), New(p).(*checker)
		if !reflect.DeepEqual(reused.clients, fresh.clients) || !reflect.DeepEqual(reused.uids, fresh.uids) {
			t.Fatalf("reused for %v: clients %v, uids %v; want New's %v, %v", p, reused.clients, reused.uids, fresh.clients, fresh.uids)
		}
		for _, cl := range c.clients.Map() {
			cl.begun, cl.cur = 1, &action{}
		}
	}
}
