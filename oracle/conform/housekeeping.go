package conform

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/oracle"
)

// housekeeping is one HandlePodCleanups pass of a goroutine (P3): its
// SyncKnownPods call, the creates it owes once the call returned, and the
// creates it made.
type housekeeping struct {
	id       int
	restarts int
	returned bool
	owed     []types.UID
	made     []types.UID
}

// housekeepingCall: SyncKnownPods must name the pods in config (P3); a
// create after it is one of the pass's restarts.
func (c *checker) housekeepingCall(v oracle.View, ev *history.Event) {
	switch in := ev.Input.(type) {
	case ops.SyncKnownPods:
		c.housekeepingDone(ev.Goroutine)
		if !c.desiredInConfig(v, in.Desired) {
			var want []string
			for _, uid := range c.uids {
				if c.inConfig(v, uid) {
					want = append(want, string(uid))
				}
			}
			c.violate("P3", "SyncKnownPods with desired pods %v, want the pods in config %v", in.Desired, want)
		}
		c.hk[ev.Goroutine] = c.newHousekeeping(ev.ID)
	case ops.UpdatePod:
		if h := c.hk[ev.Goroutine]; h != nil && h.returned && in.Type == ops.Create && !in.RuntimeOnly {
			h.made = append(h.made, types.UID(in.Pod.UID))
		}
	}
}

// housekeepingReturn: SyncKnownPods returned the records the pod workers
// know; housekeeping owes a create to every desired pod the kubelet
// admitted that is missing from them and still active (not rejected, not
// terminal in config).
func (c *checker) housekeepingReturn(v oracle.View, ev *history.Event) {
	h := c.hk[ev.Goroutine]
	known, ok := ev.Output.(ops.KnownPods)
	if h == nil || h.id != ev.ID || !ok {
		return
	}
	h.returned = true
	sorted := slices.IsSortedFunc(known, func(a, b ops.KnownPod) int { return strings.Compare(a.UID, b.UID) })
	for _, uid := range c.uids {
		cfg := v.Config(uid)
		if cfg.InConfig && !lists(known, sorted, uid) && c.created[uid] && !cfg.Rejected && !cfg.Terminal {
			h.owed = append(h.owed, uid)
		}
	}
}

// newHousekeeping is the record of a pass whose SyncKnownPods call is id:
// the record of a pass judged before (freeHK), emptied, when there is one.
func (c *checker) newHousekeeping(id int) *housekeeping {
	h := c.freeHK
	if h == nil {
		return &housekeeping{id: id, restarts: c.restarts}
	}
	c.freeHK = nil
	*h = housekeeping{id: id, restarts: c.restarts, owed: h.owed[:0], made: h.made[:0]}
	return h
}

// housekeepingDone judges goroutine g's last pass, if it is over; its
// record, which nothing holds any more, serves the next pass.
func (c *checker) housekeepingDone(g string) {
	h := c.hk[g]
	delete(c.hk, g)
	if h == nil {
		return
	}
	defer func() { c.freeHK = h }()
	if h.restarts != c.restarts {
		return
	}
	if !h.returned {
		c.violate("P3", "housekeeping (%s): SyncKnownPods returned no known pods", g)
		return
	}
	made := h.made // sorted in place: the record is done with
	slices.Sort(made)
	if !slices.Equal(made, h.owed) {
		c.violate("P3", "housekeeping (%s) re-created %v, want the admitted active pods the pod workers no longer know %v",
			g, made, h.owed)
	}
}

// desiredInConfig reports whether desired is the pods in config, in the
// order of c.uids (sorted), as SyncKnownPods must be called (P3).
func (c *checker) desiredInConfig(v oracle.View, desired []string) bool {
	n := 0
	for _, uid := range c.uids {
		if !c.inConfig(v, uid) {
			continue
		}
		if n == len(desired) || desired[n] != string(uid) {
			return false
		}
		n++
	}
	return n == len(desired)
}

// lists reports whether the known pods list uid (sorted: by UID).
func lists(known ops.KnownPods, sorted bool, uid types.UID) bool {
	if sorted {
		_, ok := slices.BinarySearchFunc(known, string(uid), func(k ops.KnownPod, u string) int { return strings.Compare(k.UID, u) })
		return ok
	}
	return slices.ContainsFunc(known, func(k ops.KnownPod) bool { return k.UID == string(uid) })
}
