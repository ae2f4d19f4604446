package workers

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// PodStateSnapshot is a read-only copy of one record, for tests, narrated
// scripts and failure messages.
type PodStateSnapshot struct {
	UID types.UID
	// State is the state of SPEC §1.2: P, S, TR, T, D or F.
	State    string
	FullName string
	// GracePeriod is the effective grace in seconds (0 = not terminating).
	GracePeriod int64

	Started              bool
	TerminationRequested bool
	StartedTerminating   bool
	Terminated           bool
	Finished             bool
	Deleted              bool
	Evicted              bool
	RestartRequested     bool
	ObservedRuntime      bool
	Working              bool
	// InFlight is true while a sync call runs for the record.
	InFlight bool
	// HasWorker is true while the worker's wake-up signal is open.
	HasWorker bool

	HasPendingUpdate  bool
	PendingUpdateType UpdateType
	HasActiveUpdate   bool
	// PendingKills counts kill completion Events not yet fired.
	PendingKills int
	// CancelCount counts the cancellation Events created so far;
	// CancelFired reports whether the current one fired.
	CancelCount int
	CancelFired bool

	SyncedAt, StartedAt, TerminatingAt, TerminatedAt time.Time
}

// String is a compact, deterministic one-line form: uid, state, grace, then
// the set flags in a fixed order, e.g.
// "uid=a state=T grace=30 flags=started,requested,acknowledged,working".
func (s PodStateSnapshot) String() string {
	flags := []struct {
		on   bool
		name string
	}{
		{s.Started, "started"}, {s.TerminationRequested, "requested"},
		{s.StartedTerminating, "acknowledged"}, {s.Terminated, "terminated"},
		{s.Finished, "finished"}, {s.Deleted, "deleted"}, {s.Evicted, "evicted"},
		{s.RestartRequested, "restart"}, {s.ObservedRuntime, "runtime"},
		{s.Working, "working"}, {s.InFlight, "inflight"}, {s.HasWorker, "worker"},
	}
	var set []string
	for _, f := range flags {
		if f.on {
			set = append(set, f.name)
		}
	}
	out := fmt.Sprintf("uid=%s state=%s grace=%d flags=%s", s.UID, s.State, s.GracePeriod, strings.Join(set, ","))
	if s.HasPendingUpdate {
		out += " pending=" + s.PendingUpdateType.String()
	}
	if s.PendingKills > 0 {
		out += fmt.Sprintf(" kills=%d", s.PendingKills)
	}
	if s.CancelCount > 0 {
		out += fmt.Sprintf(" cancel=#%d", s.CancelCount)
		if s.CancelFired {
			out += "(fired)"
		}
	}
	return out
}

func snapshotOf(s *podSyncStatus) PodStateSnapshot {
	snap := PodStateSnapshot{
		UID: s.uid, State: s.stateName(), FullName: s.fullname, GracePeriod: s.gracePeriod,
		Started: s.started, TerminationRequested: s.terminationRequested,
		StartedTerminating: s.startedTerminating, Terminated: s.terminated, Finished: s.finished,
		Deleted: s.deleted, Evicted: s.evicted, RestartRequested: s.restartRequested,
		ObservedRuntime: s.observedRuntime, Working: s.working, InFlight: s.inFlight,
		HasWorker: s.updates != nil, HasPendingUpdate: s.pendingUpdate != nil,
		HasActiveUpdate: s.activeUpdate != nil, PendingKills: len(s.notifyPostTerminating),
		CancelCount: s.cancelCount, CancelFired: s.cancelFired,
		SyncedAt: s.syncedAt, StartedAt: s.startedAt, TerminatingAt: s.terminatingAt, TerminatedAt: s.terminatedAt,
	}
	if s.pendingUpdate != nil {
		snap.PendingUpdateType = s.pendingUpdate.UpdateType
	}
	return snap
}

// PodState returns a snapshot of uid's record, or false if the UID is unknown.
func (p *PodWorkers) PodState(uid types.UID) (PodStateSnapshot, bool) {
	p.podLock.Lock()
	defer p.podLock.Unlock()
	status, ok := p.records.get(uid)
	if !ok {
		return PodStateSnapshot{}, false
	}
	return snapshotOf(status), true
}

// PodStates returns a snapshot of every record, in UID order.
func (p *PodWorkers) PodStates() []PodStateSnapshot {
	p.podLock.Lock()
	defer p.podLock.Unlock()
	snaps := make([]PodStateSnapshot, 0, len(p.records))
	for _, uid := range p.sortedUIDsLocked() {
		snaps = append(snaps, snapshotOf(p.records.at(uid)))
	}
	return snaps
}

// StaticPodSnapshot is the exclusion state of one static full name.
type StaticPodSnapshot struct {
	// Started is the UID allowed to run under the name ("" if none).
	Started types.UID
	// Waiting are the UIDs queued to start, in arrival order (pruned lazily).
	Waiting []types.UID
}

// StaticPodState returns the exclusion state of a static full name.
func (p *PodWorkers) StaticPodState(fullname string) StaticPodSnapshot {
	p.podLock.Lock()
	defer p.podLock.Unlock()
	return StaticPodSnapshot{
		Started: p.startedStaticPodsByFullname[fullname],
		Waiting: slices.Clone(p.waitingToStartStaticPodsByFullname[fullname]),
	}
}
