package conform

import (
	"slices"
	"strconv"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/plan"
)

// reset makes c's plan-derived state for a run of p; every other field is
// zero or empty.
func (c *checker) reset(p plan.Plan) {
	c.plan = p
	n := max(p.Clients, 1)
	if len(c.clientNames) < n { // client i's goroutine name, made once
		c.clientNames = append(c.clientNames, make([]string, n-len(c.clientNames))...)
	}
	names := c.clientNames[:n]
	c.counts = append(c.counts[:0], make([]int, n)...) // client i's actions, for room made at once
	counts := c.counts
	made := 0 // client records made
	for _, a := range p.Actions {
		if i := a.Client % n; i >= 0 {
			counts[i]++
		}
	}
	if cap(c.uids) < len(p.Actions) {
		c.uids = make([]types.UID, 0, len(p.Actions))
	}
	for _, a := range p.Actions {
		name := clientName(names, a.Client%n)
		cl, _ := c.clients.Get(name)
		if cl == nil {
			cl = c.clientRec(made)
			made++
			if i := a.Client % n; i >= 0 {
				cl.actions = slices.Grow(cl.actions, counts[i])
			}
			c.clients.Set(name, cl)
		}
		cl.actions = append(cl.actions, a)
		if a.UID != "" {
			c.uids = append(c.uids, a.UID)
		}
	}
	sortUIDs(c.uids)
	c.uids = slices.Compact(c.uids) // each UID the plan names, once
	c.firsts = append(c.firsts[:0], make([]*plan.Action, len(c.uids))...)
	c.versions = append(c.versions[:0], make([]int, len(c.uids))...)
	c.created = append(c.created[:0], make([]bool, len(c.uids))...)
}

// clientRec is the k-th client record of a run, empty: the one the run
// before made k-th, or a new one.
func (c *checker) clientRec(k int) *client {
	if k == len(c.clientRecs) {
		c.clientRecs = append(c.clientRecs, &client{})
	}
	cl := c.clientRecs[k]
	clear(cl.actions)
	*cl = client{actions: cl.actions[:0]}
	return cl
}

// clientPrefix begins the goroutine name of every plan client.
const clientPrefix = "client/"

// clientName is the goroutine name of plan client i, kept in names.
func clientName(names []string, i int) string {
	if i < 0 || i >= len(names) { // a plan read from a file may hold anything
		return clientPrefix + strconv.Itoa(i)
	}
	if names[i] == "" {
		names[i] = clientPrefix + strconv.Itoa(i)
	}
	return names[i]
}
