package conform

import (
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/oracle"
)

// P8, the grace reaper (Node.ForceDeleteAfterGrace): a pod object deleted
// with grace g at t is force-deleted (Removed by "grace reaper", Forced)
// once its grace has expired, at t + g + reapSlack, the earliest such
// deadline winning, unless it left the API before; the reaper deletes no
// object at another moment, and none nobody deleted.
const reapSlack = time.Second

// reaperOn: the plan's node runs the grace reaper.
func (c *checker) reaperOn() bool {
	n := c.plan.Node
	return n != nil && n.APIServer && n.ForceDeleteAfterGrace
}

func (c *checker) reaperNoted(k oracle.Kubelet, ev *history.Event) {
	if !c.reaperOn() {
		return
	}
	switch n := ev.Note.(type) {
	case history.DeleteRequested:
		if c.first(n.UID).Static {
			return
		}
		at := ev.At + time.Duration(n.Grace)*time.Second + reapSlack
		if due, ok := c.reapDue[n.UID]; !ok || at < due {
			c.reapDue[n.UID] = at
		}
	case history.Removed:
		due, ok := c.reapDue[n.UID]
		if n.By == "grace reaper" && (!ok || ev.At != due || !n.Forced) {
			c.violate("P8", "the grace reaper removed pod %s at %v (forced=%v), but its deadline is %v (queued=%v)", n.UID,
				ev.At, n.Forced, due, ok)
		}
		delete(c.reapDue, n.UID)
	case history.KubeletSettled:
		for _, uid := range c.uids {
			if due, ok := c.reapDue[uid]; ok && k.Pod(uid).InAPI {
				c.violate("P8", "pod %s is still in the API at the end, past its grace reaper deadline %v", uid, due)
			}
		}
	}
}

// leftAPI: the pod object left the API otherwise (a REMOVE or a vanish of
// the config source's pod): its reap is forgotten.
func (c *checker) leftAPI(uid types.UID) { delete(c.reapDue, uid) }
