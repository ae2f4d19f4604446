//go:build podsim_cachectx

package podworkers

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/types"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
)

// The status cache's read methods as kubernetes v1.38 declares
// kubecontainer.ROCache: each takes a context, which the cache ignores
// (cache_get.go has the shape before it).

// Get implements kubecontainer.ROCache.
func (c Cache) Get(_ context.Context, uid types.UID) (*kubecontainer.PodStatus, error) {
	return c.status(uid), nil
}

// GetNewerThan implements kubecontainer.ROCache.
func (c Cache) GetNewerThan(_ context.Context, uid types.UID, _ time.Time) (*kubecontainer.PodStatus, error) {
	return c.newer(uid), nil
}
