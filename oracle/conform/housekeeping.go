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
// create after it is one of the pass's restarts. An UpdatePod then counts
// its pod's version and create (after the judging, which reads what came
// before it; nothing else of a call reads them): here, where the call's
// input is unpacked once.
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
		c.hk.Set(ev.Goroutine, c.newHousekeeping(ev.ID))
	case ops.UpdatePod:
		if h, _ := c.hk.Get(ev.Goroutine); h != nil && h.returned && in.Type == ops.Create && !in.RuntimeOnly {
			h.made = append(h.made, types.UID(in.Pod.UID))
		}
		if i := c.uidIndex(types.UID(in.Pod.UID)); !in.RuntimeOnly && i >= 0 {
			c.versions[i] = max(c.versions[i], in.Pod.Version)
			c.created[i] = c.created[i] || in.Type == ops.Create
		}
	}
}

// housekeepingReturn: SyncKnownPods returned the records the pod workers
// know; housekeeping owes a create to every desired pod the kubelet
// admitted that is missing from them and still active (not rejected, not
// terminal in config).
func (c *checker) housekeepingReturn(v oracle.View, ev *history.Event) {
	h, _ := c.hk.Get(ev.Goroutine)
	known, ok := ev.Output.(ops.KnownPods)
	if h == nil || h.id != ev.ID || !ok {
		return
	}
	h.returned = true
	listed := knownLister{known: known, sorted: slices.IsSortedFunc(known, func(a, b ops.KnownPod) int { return strings.Compare(a.UID, b.UID) })}
	for i, uid := range c.uids { // sorted: listed is asked in UID order
		if listed.has(uid) || !c.created[i] {
			continue // most UIDs: the view's config is not read
		}
		if cfg := v.Config(uid); cfg.InConfig && !cfg.Rejected && !cfg.Terminal {
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
	h, _ := c.hk.Get(g)
	c.hk.Del(g)
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

// knownLister says which UIDs known pods list. Sorted by UID, they are
// walked beside the UIDs asked, which come in UID order: the UIDs before
// the one asked are passed once and for all.
type knownLister struct {
	known  ops.KnownPods
	sorted bool
	next   int // sorted: known[:next] are before every UID asked yet
}

// has reports whether the known pods list uid; when they are sorted, uid
// comes after every UID asked before.
func (l *knownLister) has(uid types.UID) bool {
	if !l.sorted {
		return slices.ContainsFunc(l.known, func(k ops.KnownPod) bool { return k.UID == string(uid) })
	}
	for l.next < len(l.known) && l.known[l.next].UID < string(uid) {
		l.next++
	}
	return l.next < len(l.known) && l.known[l.next].UID == string(uid)
}
