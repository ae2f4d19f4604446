// Package evictmgr runs the real eviction manager of the pinned kubelet
// (k8s.io/kubernetes/pkg/kubelet/eviction.NewManager) inside the driver's
// synctest bubble.
//
// Upstream's Start runs a loop that never returns: synchronize (observe
// the node's stats, and if a threshold is met rank the active pods and
// evict the first one that is not critical through the KillPodFunc, which
// is killPodNow and blocks until the kill completed or timed out), then,
// if a pod was evicted, waitForPodsCleanup (poll the cleaned-up function
// every second for up to 30 s), else sleep the monitoring interval. Both
// steps are unexported; they are pulled by //go:linkname as method
// expressions (guarded by TestLinknameSignature) and run as one cycle per
// Cycle call, in a goroutine of the cycle's own: the driver decides when a
// cycle runs (a pressure episode), and at most one runs at a time, as in
// upstream's loop.
//
// What the plan controls is the summary provider (Stats): memory pressure
// on or off, and which pod uses the most memory. The manager is configured
// with one hard threshold, memory.available < 1Gi, so an eviction kills
// with grace 1 (upstream's immediate eviction). The cleaned-up function is
// the caller's.
package evictmgr

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"time"
	"unsafe"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"
	statsapi "k8s.io/kubelet/pkg/apis/stats/v1alpha1"
	evictionapi "k8s.io/kubernetes/pkg/kubelet/eviction/api"

	"k8s.io/kubernetes/pkg/kubelet/eviction"
	"k8s.io/utils/clock"
)

// synchronize is (*eviction.managerImpl).synchronize, pulled by name.
//
//go:linkname synchronize k8s.io/kubernetes/pkg/kubelet/eviction.(*managerImpl).synchronize
func synchronize(m unsafe.Pointer, ctx context.Context, diskInfoProvider eviction.DiskInfoProvider, podFunc eviction.ActivePodsFunc) ([]*v1.Pod, error)

// waitForPodsCleanup is (*eviction.managerImpl).waitForPodsCleanup.
//
//go:linkname waitForPodsCleanup k8s.io/kubernetes/pkg/kubelet/eviction.(*managerImpl).waitForPodsCleanup
func waitForPodsCleanup(m unsafe.Pointer, logger klog.Logger, podCleanedUpFunc eviction.PodCleanedUpFunc, pods []*v1.Pod)

// Manager is one real eviction manager with its stats.
type Manager struct {
	ptr   unsafe.Pointer
	ctx   context.Context
	Stats *Stats
	mu    sync.Mutex
	busy  bool
	// evicted are the pods each cycle evicted, in cycle order.
	evicted [][]*v1.Pod
}

// New builds the real manager (eviction.NewManager) with the bubble's
// clock, the kill function kill and a hard memory threshold.
func New(ctx context.Context, kill eviction.KillPodFunc) (*Manager, error) {
	q := resource.MustParse("1Gi")
	cfg := eviction.Config{MaxPodGracePeriodSeconds: 30, PressureTransitionPeriod: 5 * time.Minute,
		Thresholds: []evictionapi.Threshold{{Signal: evictionapi.SignalMemoryAvailable,
			Operator: evictionapi.OpLessThan, Value: evictionapi.ThresholdValue{Quantity: &q}}}}
	stats := &Stats{}
	m, _ := eviction.NewManager(stats, cfg, kill, noGC{}, noGC{}, &record.FakeRecorder{},
		&v1.ObjectReference{Kind: "Node", Name: "podsim"}, clock.RealClock{}, false)
	v := reflect.ValueOf(m)
	if v.Kind() != reflect.Pointer || v.Type().String() != "*eviction.managerImpl" {
		return nil, fmt.Errorf("eviction.NewManager returned %T, not the manager", m)
	}
	return &Manager{ptr: v.UnsafePointer(), ctx: ctx, Stats: stats}, nil
}

// Busy reports whether a cycle runs.
func (m *Manager) Busy() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.busy
}

// Cycle starts one turn of upstream's loop in a goroutine: synchronize
// over active (the pods as GetActivePods said at the start), then, if it
// evicted, waitForPodsCleanup with cleanedUp. It reports false (and does
// nothing) if a cycle is still running.
func (m *Manager) Cycle(active []*v1.Pod, cleanedUp eviction.PodCleanedUpFunc, logger klog.Logger) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.busy {
		return false
	}
	m.busy = true
	go func() {
		pods, err := synchronize(m.ptr, m.ctx, noImageFs{}, func() []*v1.Pod { return active })
		if pods != nil && err == nil {
			waitForPodsCleanup(m.ptr, logger, cleanedUp, pods)
		}
		m.mu.Lock()
		m.busy = false
		m.evicted = append(m.evicted, pods)
		m.mu.Unlock()
	}()
	return true
}

// Evicted lists the UIDs each finished cycle evicted.
func (m *Manager) Evicted() [][]string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out [][]string
	for _, pods := range m.evicted {
		var uids []string
		for _, p := range pods {
			uids = append(uids, string(p.UID))
		}
		out = append(out, uids)
	}
	return out
}

// Stats is the summary provider: the node's memory (under pressure or
// not) and the pods' memory use, the one ranked first using the most.
type Stats struct {
	mu       sync.Mutex
	pressure bool
	first    string
	pods     []*v1.Pod
}

// Set turns pressure on or off; first is the pod using the most memory,
// pods the pods with stats.
func (s *Stats) Set(pressure bool, first string, pods []*v1.Pod) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pressure, s.first, s.pods = pressure, first, slices.Clone(pods)
}

// Get is the summary now (its time is the bubble's now, so every
// synchronize sees updated stats).
func (s *Stats) Get(context.Context, bool) (*statsapi.Summary, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := metav1.Now()
	avail, used := uint64(8<<30), uint64(1<<30)
	if s.pressure {
		avail, used = 100<<20, 8<<30
	}
	sum := &statsapi.Summary{Node: statsapi.NodeStats{NodeName: "podsim",
		Memory: &statsapi.MemoryStats{Time: now, AvailableBytes: &avail, WorkingSetBytes: &used}}}
	for _, p := range s.pods {
		ws := WorkingSet(s.first, string(p.UID))
		sum.Pods = append(sum.Pods, statsapi.PodStats{
			PodRef: statsapi.PodReference{Name: p.Name, Namespace: p.Namespace, UID: string(p.UID)},
			Memory: &statsapi.MemoryStats{Time: now, WorkingSetBytes: &ws}})
	}
	return sum, nil
}

// WorkingSet is the memory a pod uses in the stats (uid), when first is
// the pod using the most: 1 GiB for it, 10 MiB for the others. The pods
// request no memory, so each exceeds its request by all it uses.
func WorkingSet(first, uid string) uint64 {
	if uid == first {
		return 1 << 30
	}
	return 10 << 20
}

// GetCPUAndMemoryStats is Get.
func (s *Stats) GetCPUAndMemoryStats(ctx context.Context) (*statsapi.Summary, error) {
	return s.Get(ctx, false)
}

// noImageFs: one filesystem for everything.
type noImageFs struct{}

func (noImageFs) HasDedicatedImageFs(context.Context) (bool, error)     { return false, nil }
func (noImageFs) HasDedicatedContainerFs(context.Context) (bool, error) { return false, nil }

// noGC: no images nor containers to collect (memory pressure has no
// node-level reclaim anyway).
type noGC struct{}

func (noGC) DeleteUnusedImages(context.Context) error        { return nil }
func (noGC) DeleteAllUnusedContainers(context.Context) error { return nil }
