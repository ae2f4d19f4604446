package world

import (
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/workers"
	"github.com/podsim/podsim/world/fakeruntime"
)

// cacheView is the runtime cache as the pod workers read it: Get, the read
// under the pod lock that decides a terminal-phase pod's first state
// (SPEC §1.4 step 2), is noted for the calling goroutine, so its UpdatePod
// reports what it read (World.updatePod, ops.UpdateResult).
type cacheView struct {
	*fakeruntime.Runtime
	w *World
}

// GetNewerThan is the worker's status read before a sync call: noted
// (history.StatusRead) while c is the current epoch's cache, for the
// status-freshness check (oracle/latency R3).
func (c cacheView) GetNewerThan(uid types.UID, minTime time.Time) (*workers.PodStatus, error) {
	if c.Runtime == c.w.Runtime {
		newer := time.Duration(-1)
		if !minTime.IsZero() {
			newer = minTime.Sub(c.w.S.Now().Add(-c.w.S.Elapsed()))
		}
		c.w.note(c.w.kept.boxes.StatusRead(uid, newer))
	}
	st, err := c.Runtime.GetNewerThan(uid, minTime)
	if err != nil && c.Runtime == c.w.Runtime {
		// The pass ends with no call: the model must know (history.ReadFailed).
		// The fake runtime's cache never fails, so no run records one today.
		c.w.emit(history.ReadFailed, 0, ops.StatusReadFailed{UID: string(uid)}, nil)
	}
	return st, err
}

func (c cacheView) Get(uid types.UID) (*workers.PodStatus, error) {
	st, err := c.Runtime.Get(uid)
	// Idle as the runtime reported it (no running container; the fake
	// runtime has no sandboxes), judged here and not by the pod workers'
	// own PodStatus.IsIdle, the code under test.
	view := ops.CacheBusy
	if err == nil && st.RunningContainers == 0 && !st.ReadySandbox {
		view = ops.CacheIdle
	}
	c.w.cacheReads.Set(c.w.S.Goroutine(), view)
	return st, err
}
