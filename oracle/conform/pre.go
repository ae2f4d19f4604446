package conform

import (
	"cmp"
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/oracle"
	"github.com/podsim/podsim/plan"
)

// pre is what the target showed of an action's pod as the action began:
// the config source's view, and the kubelet's and the API server's when the
// target has them.
type pre struct {
	kube      bool // the target has a kubelet around the pod workers
	apiServer bool
	known     bool // the pod was seen before (an earlier action named its UID)
	inConfig  bool
	admitted  bool
	rejected  bool
	inAPI     bool
	phase     v1.PodPhase
	shutdown  bool // a node shutdown began (admission is closed)
	refused   bool // the API server refuses the action (name taken, object gone)
	// inConfigUIDs are the pods in config then, sorted (a Restart's only:
	// only P4 reads them).
	inConfigUIDs []types.UID
}

// toWorkers: config changes and kills of the pod reach the pod workers (a
// kubelet sends them only for pods it admitted).
func (p pre) toWorkers() bool { return !p.kube || p.admitted }

// added: the kubelet added the pod (admitted or rejected it), so its
// REMOVE sends a kill.
func (p pre) added() bool { return !p.kube || p.admitted || p.rejected }

func (c *checker) preOf(v oracle.View, a plan.Action) pre {
	known := c.firstOf(a.UID) != nil
	out := pre{known: known, phase: v1.PodRunning}
	k := v.Kubelet()
	if a.Kind == plan.Restart {
		for _, uid := range c.uids {
			if c.inConfig(v, uid) {
				out.inConfigUIDs = append(out.inConfigUIDs, uid)
			}
		}
	}
	if k == nil {
		out.inConfig = v.Config(a.UID).InConfig
		return out
	}
	kp := k.Pod(a.UID)
	out.kube, out.apiServer = true, k.APIServer()
	out.inConfig, out.admitted, out.rejected, out.inAPI = kp.InConfig, kp.Admitted, kp.Rejected, kp.InAPI
	out.shutdown = k.ShuttingDown()
	if kp.Phase != "" {
		out.phase = kp.Phase
	}
	out.refused = c.refused(k, a, known)
	return out
}

// inConfig: uid is desired (in config) now.
func (c *checker) inConfig(v oracle.View, uid types.UID) bool {
	if k := v.Kubelet(); k != nil {
		return k.Pod(uid).InConfig
	}
	return v.Config(uid).InConfig
}

// refused: under Node.UniqueNames the API server refuses a create whose
// name another pod object in the API holds, and a delete of an object not
// in the API; static pods have no API object and are never refused.
func (c *checker) refused(k oracle.Kubelet, a plan.Action, known bool) bool {
	n := c.plan.Node
	if n == nil || !n.APIServer || !n.UniqueNames || a.Static {
		return false
	}
	switch a.Kind {
	case plan.Create:
		name := c.shapeOf(a).PodName()
		for i, uid := range c.uids {
			if uid == a.UID {
				continue
			}
			other := c.firsts[i]
			if other != nil && !other.Static && other.PodName() == name && k.Pod(uid).InAPI {
				return true
			}
		}
	case plan.Delete:
		return !known || !k.Pod(a.UID).InAPI
	}
	return false
}

// shapeOf is the action a's pod was first seen with (a itself if new).
func (c *checker) shapeOf(a plan.Action) plan.Action {
	if f := c.firstOf(a.UID); f != nil {
		return *f
	}
	return a
}

// uidIndex is uid's index in c.uids, -1 if the plan names no such UID. A
// scan: a plan names a few UIDs, and a map of them costs more to hash.
func (c *checker) uidIndex(uid types.UID) int {
	for i, u := range c.uids {
		if u == uid {
			return i
		}
	}
	return -1
}

// firstOf is the action the target first saw uid with, nil if none yet.
func (c *checker) firstOf(uid types.UID) *plan.Action {
	if i := c.uidIndex(uid); i >= 0 {
		return c.firsts[i]
	}
	return nil
}

// first is the action the target first saw uid with, the zero Action if
// none yet (as a map of them would answer).
func (c *checker) first(uid types.UID) plan.Action {
	if f := c.firstOf(uid); f != nil {
		return *f
	}
	return plan.Action{}
}

func sortUIDs(uids []types.UID) { slices.Sort(uids) }

// sortedNames is m's keys, sorted, in buf's array (emptied).
func sortedNames[V any](buf []string, m map[string]V) []string {
	out := buf[:0]
	for k := range m {
		out = append(out, k)
	}
	slices.SortFunc(out, cmp.Compare[string])
	return out
}
