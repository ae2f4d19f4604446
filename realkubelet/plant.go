package realkubelet

import (
	"github.com/podsim/podsim/realkubelet/planted"
	kubetypes "k8s.io/kubernetes/pkg/kubelet/types"

	"k8s.io/kubernetes/pkg/kubelet"
)

// plantFires reports whether bug b is planted, has not fired yet, and
// applies to the update o: a kill of a running pod (known, its containers
// may run, termination not requested). It marks the bug fired.
func (d *Driver) plantFires(b planted.Bug, o kubelet.UpdatePodOptions) bool {
	if d.opts.plant != b || d.planted || o.Pod == nil || o.UpdateType != kubetypes.SyncPodKill {
		return false
	}
	uid := o.Pod.UID
	if !d.running[uid] || d.pw.IsPodTerminationRequested(uid) || !d.pw.CouldHaveRunningContainers(uid) {
		return false
	}
	d.planted = true
	return true
}
