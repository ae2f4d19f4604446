package kubelet

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/podsim/podsim/oracle"
	"k8s.io/apimachinery/pkg/types"
)

// K6 identity (ours: docs/bugs.md V2's identity invariant, "every destructive
// action carries the UID it was decided for", the API-side analogue of
// S16). An actor of the API-server side removes a pod object from the API
// only if a delete was requested for that very object — that UID, that
// incarnation (KubeletPod.Incarnation: a new object under a reused UID is
// another object) — and the grace reaper's forced delete comes only once
// that object's own deletion grace expired.
//
// The check keeps its own record of the delete requests, made at the
// client's delete (history.DeleteRequested), never from the reaper's or
// the status manager's state: a mutant that mixes up objects cannot mix up
// the record. Like the API server it judges, it outlives a kubelet
// restart. Its violations are the "kubelet" oracle's.
type identityCheck struct {
	*reporter
	deletes map[types.UID]deleteRequest
}

// deleteRequest is what the check knows of the delete requests of one
// pod object.
type deleteRequest struct {
	incarnation int    // KubeletPod.Incarnation of the object deleted
	name        string // its name
	at          time.Duration
	grace       int64
	expires     time.Duration // the earliest request's end of grace
}

// deleteRequested records a client's delete of uid's current object with
// grace seconds (the earliest expiry wins, as in the API server).
func (c *identityCheck) deleteRequested(k oracle.Kubelet, uid types.UID, grace int64, now time.Duration) {
	p := k.Pod(uid)
	expires := now + time.Duration(grace)*time.Second
	if r, ok := c.deletes[uid]; ok && r.incarnation == p.Incarnation {
		r.expires = min(r.expires, expires)
		c.deletes[uid] = r
		return
	}
	if c.deletes == nil {
		c.deletes = map[types.UID]deleteRequest{}
	}
	c.deletes[uid] = deleteRequest{incarnation: p.Incarnation, name: p.Name, at: now, grace: grace, expires: expires}
}

// removed is K6 for one removal of uid's object from the API by an actor
// (by names it); forced: a forced delete, which must also wait for the
// object's grace.
func (c *identityCheck) removed(k oracle.Kubelet, uid types.UID, by string, forced bool, now time.Duration) {
	p := k.Pod(uid)
	name := p.Name
	r, ok := c.deletes[uid]
	switch {
	case !ok || r.incarnation != p.Incarnation:
		c.violate("K6", "the %s removed pod %s (uid %s) from the API, but no delete was requested for that object%s",
			by, name, uid, c.othersNamed(name, uid))
	case forced && now < r.expires:
		c.violate("K6", "the %s force-deleted pod %s (uid %s) at %v, before its deletion grace expired at %v "+
			"(deleted at %v with grace %ds)%s", by, name, uid, now, r.expires, r.at, r.grace, c.othersNamed(name, uid))
	}
}

// othersNamed tells the delete requests of other objects of that name: the
// objects the removal was likely decided for.
func (c *identityCheck) othersNamed(name string, except types.UID) string {
	var out []string
	for _, uid := range slices.Sorted(maps.Keys(c.deletes)) {
		if r := c.deletes[uid]; uid != except && r.name == name {
			out = append(out, fmt.Sprintf("uid %s at %v (grace %ds)", uid, r.at, r.grace))
		}
	}
	if len(out) == 0 {
		return ""
	}
	return "; deletes of that name were requested for " + strings.Join(out, ", ")
}
