package nearmiss

import (
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model"
	"github.com/podsim/podsim/oracle/latency"
)

// Rule names of the safety, runtime and kubelet-level near misses.
const (
	S3          = "safety/S3"
	S11         = "safety/S11"
	KillLatency = "runtime/kill-latency"
	StatusWrite = "conform/status-write"
	K2          = "kubelet/K2"
	K3          = "kubelet/K3"
)

// termRequest is an open UpdatePod call that requests termination.
type termRequest struct {
	uid, goroutine string
	applied        bool // the caller released the pod lock since the call
}

// kube follows the windows of the safety, kill-latency and kubelet-level
// rules, per pod: the termination requests in flight, the callbacks in
// flight, and when a pod's terminating and terminated phases ended.
type kube struct {
	sink        Sink
	requests    map[int]termRequest // open termination requests by call ID
	syncing     map[string]bool     // a SyncPod in flight
	cancelled   map[string]time.Duration
	terminating map[string]int64 // the grace of the SyncTerminatingPod in flight
	terminated  map[string]time.Duration
	finished    map[string]time.Duration
}

func newKube(s Sink) *kube {
	k := &kube{sink: s}
	k.reset()
	return k
}

// reset forgets everything (a restart: new pod workers, calls cut).
func (k *kube) reset() {
	k.requests, k.syncing, k.cancelled = map[int]termRequest{}, map[string]bool{}, map[string]time.Duration{}
	k.terminating, k.terminated, k.finished = map[string]int64{}, map[string]time.Duration{}, map[string]time.Duration{}
}

// requestsTermination reports whether an update asks for the pod's
// termination (S3: a kill, a deletion timestamp, a terminal phase).
func requestsTermination(u model.UpdatePod) bool {
	return !u.RuntimeOnly && (u.Type == model.Kill || u.Pod.DeletionTimestamp || u.Pod.Phase.Terminal())
}

// graceOf is the grace an update asks for (S11: an override, else the
// deletion grace; an explicit 0 gives 1), false if it asks for none.
func graceOf(u model.UpdatePod) (int64, bool) {
	switch {
	case u.Kill.HasGraceOverride:
		return max(1, u.Kill.GraceOverride), true
	case u.Pod.HasDeletionGrace:
		return max(1, u.Pod.DeletionGrace), true
	}
	return 0, false
}

func (k *kube) observe(ev history.Event) {
	switch ev.Kind {
	case history.ClientCall:
		if u, ok := ev.Input.(model.UpdatePod); ok {
			k.update(ev, u)
		}
	case history.ClientReturn:
		delete(k.requests, ev.ID)
	case history.LockReleasing:
		for id, r := range k.requests {
			if r.goroutine == ev.Goroutine && !r.applied {
				r.applied = true
				k.requests[id] = r
			}
		}
	case history.CallbackBegin:
		if in, ok := ev.Input.(model.SyncBegin); ok {
			k.begin(in)
		}
	case history.Fired:
		if in, ok := ev.Input.(model.CancelFired); ok && k.syncing[in.UID] {
			if _, seen := k.cancelled[in.UID]; !seen {
				k.cancelled[in.UID] = ev.At
			}
		}
	case history.CallbackEnd:
		if in, ok := ev.Input.(model.SyncEnd); ok {
			k.end(ev.At, in)
		}
	case history.Noted:
		k.noted(ev.At, ev.Note)
	}
}

// update follows a client's UpdatePod call: a termination request opens
// S3's window; a smaller grace while a SyncTerminatingPod is in flight is
// S11's (the call must cut its grace, and cancel it).
func (k *kube) update(ev history.Event, u model.UpdatePod) {
	if requestsTermination(u) {
		k.requests[ev.ID] = termRequest{uid: u.Pod.UID, goroutine: ev.Goroutine}
	}
	if grace, ok := graceOf(u); ok && !u.RuntimeOnly {
		if inFlight, busy := k.terminating[u.Pod.UID]; busy && grace < inFlight {
			k.sink.Near(S11, "grace-cut-in-flight")
		}
	}
}

// begin follows a callback's begin: a SyncPod that begins while a
// termination request of its pod is in flight came as close to S3's
// violation as the request's stage says.
func (k *kube) begin(in model.SyncBegin) {
	switch in.Fn {
	case model.SyncPod:
		for _, r := range k.requests {
			if r.uid == in.UID {
				stage := "called"
				if r.applied {
					stage = "applied"
				}
				k.sink.Near(S3, "sync-begin-kill-pending/"+stage)
			}
		}
		k.syncing[in.UID] = true
		delete(k.cancelled, in.UID)
	case model.SyncTerminatingPod:
		k.terminating[in.UID] = in.Grace
	}
}

// end follows a callback's end: a cancelled SyncPod's latency in quarters
// of the kill-latency bound ("q0": in the instant of the cancellation),
// and when the pod's terminating and terminated phases succeeded.
func (k *kube) end(at time.Duration, in model.SyncEnd) {
	switch in.Fn {
	case model.SyncPod:
		if c, ok := k.cancelled[in.UID]; ok {
			if d := at - c; d <= latency.KillLatencyBound {
				q := 0
				if d > 0 {
					q = quarter(d, latency.KillLatencyBound)
				}
				k.sink.Near(KillLatency, fmt.Sprintf("q%d", q))
			}
		}
		delete(k.syncing, in.UID)
		delete(k.cancelled, in.UID)
	case model.SyncTerminatingPod:
		delete(k.terminating, in.UID)
		if in.Outcome == model.OK {
			k.terminated[in.UID] = at
		}
	case model.SyncTerminatedPod:
		if in.Outcome == model.OK {
			k.finished[in.UID] = at
		}
	}
}

// noted follows the status manager: a phase written while a termination
// request or a SyncTerminatingPod of the pod is in flight (the write races
// the kill, as the conform rules' status functions do), a terminal phase
// written in the instant its containers were reported stopped (K2), a
// final delete in the instant the pod finished (K3).
func (k *kube) noted(at time.Duration, n history.Note) {
	switch n := n.(type) {
	case history.PhaseWritten:
		uid := string(n.UID)
		for _, r := range k.requests {
			if r.uid == uid {
				k.sink.Near(StatusWrite, "kill-in-flight/"+string(n.Phase))
				break
			}
		}
		if _, busy := k.terminating[uid]; busy {
			k.sink.Near(StatusWrite, "terminating/"+string(n.Phase))
		}
		if t, ok := k.terminated[uid]; ok && t == at && (n.Phase == v1.PodSucceeded || n.Phase == v1.PodFailed) {
			k.sink.Near(K2, "terminal-write-at-termination")
		}
	case history.Removed:
		if t, ok := k.finished[string(n.UID)]; ok && t == at && !n.Forced && n.By == "status manager" {
			k.sink.Near(K3, "delete-at-finish")
		}
	}
}
