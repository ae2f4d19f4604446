package podworkers

import (
	"context"
	_ "unsafe" // for go:linkname

	"k8s.io/client-go/tools/record"
	"k8s.io/kubernetes/pkg/kubelet"
	"k8s.io/kubernetes/pkg/kubelet/eviction"
)

// killPodNow is pkg/kubelet.killPodNow, pulled by name like newPodWorkers
// (adapter.go) and guarded the same way (TestLinknameSignature): the real
// KillPodFunc the eviction and shutdown managers get, which computes its
// timeout (max(10 s, 1.5 × grace)), sends the kill with a completion
// channel of its own and waits for it or the timeout on the bubble's
// clock.
//
//go:linkname killPodNow k8s.io/kubernetes/pkg/kubelet.killPodNow
func killPodNow(ctx context.Context, podWorkers kubelet.PodWorkers, recorder record.EventRecorder) eviction.KillPodFunc

// KillPodNow is the real killPodNow: the KillPodFunc a kubelet manager
// gets, sending its kills to podWorkers.
func KillPodNow(ctx context.Context, podWorkers kubelet.PodWorkers, recorder record.EventRecorder) eviction.KillPodFunc {
	return killPodNow(ctx, podWorkers, recorder)
}
