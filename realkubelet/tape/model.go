package tape

import (
	"cmp"
	"slices"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/kubernetes/pkg/kubelet"
)

// The model's vocabulary for what the driver tells the real pod workers
// and what they answer.

// UpdatePod is the model's view of an UpdatePod call, with an idle cache
// (the driver says when its Cache.Get shows a running container).
func UpdatePod(o kubelet.UpdatePodOptions, completionID int) ops.UpdatePod {
	u := ops.UpdatePod{Type: ops.UpdateType(o.UpdateType), Cache: ops.CacheIdle}
	if o.Pod != nil {
		u.Pod = history.ModelPod(o.Pod)
	} else if rp := o.RunningPod; rp != nil {
		u.RuntimeOnly = true
		u.Pod = ops.Pod{UID: string(rp.ID), Name: rp.Name, Namespace: rp.Namespace}
	}
	if ko := o.KillPodOptions; ko != nil {
		u.Kill.Evict, u.Kill.CompletionID = ko.Evict, completionID
		if g := ko.PodTerminationGracePeriodSecondsOverride; g != nil {
			u.Kill.GraceOverride, u.Kill.HasGraceOverride = *g, true
		}
	}
	return u
}

// KnownPods is the model's view of SyncKnownPods' answer, sorted by UID.
func KnownPods(known map[types.UID]kubelet.PodWorkerSync) ops.KnownPods {
	out := ops.KnownPods{}
	for uid, r := range known {
		out = append(out, ops.KnownPod{UID: string(uid), State: ops.WorkType(r.State), Orphan: r.Orphan,
			HasConfig: r.HasConfig, Static: r.Static})
	}
	slices.SortFunc(out, func(a, b ops.KnownPod) int { return cmp.Compare(a.UID, b.UID) })
	return out
}
