package liveness

import (
	"time"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/oracle"
)

// laterDueFirst: as takenAfterFailure with a BackoffError ending at 41s
// (a's update is owed its take by 1m19s, and taken at 1m10s), and pod b,
// running, is updated at 3s and taken at d.
func (s *lvScript) laterDueFirst(d time.Duration) []history.Violation {
	s.v.cfg["a"] = oracle.PodConfig{InConfig: true}
	s.v.cfg["b"] = oracle.PodConfig{InConfig: true}
	s.update(ops.Create, "a", lvStates{"a": lvRunning})
	s.update(ops.Create, "b", lvStates{"b": lvRunning})
	s.sync("b", ops.SyncPod, ops.OK)
	s.at = time.Second
	s.emit("worker/a", history.CallbackBegin, 0, ops.SyncBegin{UID: "a", Fn: ops.SyncPod}, nil)
	s.emit("worker/a", history.CallbackEnd, 0, ops.SyncEnd{UID: "a", Fn: ops.SyncPod, Outcome: ops.Failed, Err: backoffAt(41 * time.Second)}, nil)
	s.at = 2 * time.Second
	s.update(ops.Update, "a", nil)
	s.at = 3 * time.Second
	s.update(ops.Update, "b", nil)
	s.at = d
	s.sync("b", ops.SyncPod, ops.OK)
	s.at = 70 * time.Second
	s.sync("a", ops.SyncPod, ops.OK)
	return s.settle()
}
