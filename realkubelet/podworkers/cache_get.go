//go:build !podsim_cachectx

package podworkers

import (
	"time"

	"k8s.io/apimachinery/pkg/types"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
)

// The status cache's read methods as kubernetes v1.36 and v1.37 declare
// kubecontainer.ROCache. realrun builds with the tag podsim_cachectx
// against a tree whose ROCache takes a context (v1.38: cache_getctx.go);
// scratch.Tags reads which shape a tree has.

// Get implements kubecontainer.ROCache.
func (c Cache) Get(uid types.UID) (*kubecontainer.PodStatus, error) { return c.status(uid), nil }

// GetNewerThan implements kubecontainer.ROCache.
func (c Cache) GetNewerThan(uid types.UID, _ time.Time) (*kubecontainer.PodStatus, error) {
	return c.newer(uid), nil
}
