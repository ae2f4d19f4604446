package realkubelet

import (
	"context"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"
)

// quietContext carries a discarding logger: the pod workers log through
// klog.FromContext, and their V(0) lines would otherwise reach stderr.
func quietContext() context.Context {
	return klog.NewContext(context.Background(), logr.Discard())
}

func quietLogger() klog.Logger { return logr.Discard() }
