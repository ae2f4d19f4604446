package workers

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/types"
)

// InvariantError reports a broken internal invariant of the pod workers.
type InvariantError struct {
	// Invariant names the rule, e.g. "terminated-implies-acknowledged".
	Invariant string
	// UID is the pod concerned (empty for the static-pod maps).
	UID types.UID
	// Detail says what was found.
	Detail string
}

func (e *InvariantError) Error() string {
	if e.UID == "" {
		return fmt.Sprintf("workers: invariant %s broken: %s", e.Invariant, e.Detail)
	}
	return fmt.Sprintf("workers: invariant %s broken for pod %s: %s", e.Invariant, e.UID, e.Detail)
}

// recordRules name the per-record invariants, in the order brokenRule
// checks them. They restate SPEC §1.1/§1.2 and the S invariants of §3
// that one record can witness.
var recordRules = [...]struct{ name, detail string }{
	{"terminated-implies-requested", "terminated but termination never requested"},
	{"acknowledged-implies-requested", "startedTerminating without terminatingAt"},
	{"terminated-implies-acknowledged", "KnownTerminated but not ContainersBeTerminating (G3, S9)"},
	{"finished-implies-terminated", "finished but not terminated"},
	{"finished-implies-idle", "finished but working, in flight, pending or with a live signal"},
	{"terminated-implies-kills-completed", "terminated with a kill completion Event still outstanding (S14)"},
	{"grace-set-once-terminating", "termination requested with a grace period below 1 s (S11)"},
	{"evicted-implies-requested", "evicted without a termination request"},
	{"restart-implies-requested", "restart requested for a pod that is not terminating"},
	{"live-record-has-worker", "unfinished record without a worker signal"},
	{"in-flight-implies-working", "sync in flight but not working"},
	{"pending-implies-working", "pending update that no worker will consume (L3)"},
	{"acknowledged-implies-no-syncpod", "SyncPod in flight after acknowledgement (S4)"},
	{"syncpod-cancelled-once-requested", "SyncPod in flight with termination requested but not cancelled (G4, S3)"},
	{"in-flight-work-matches-record", "in-flight work behind or ahead of the record's phase"},
	{"started-static-pod-is-live", "static pod started before the full name's holder finished (S15)"},
}

// brokenRule is the first per-record rule (an index of recordRules) that
// the record s breaks, -1 if it breaks none. Each case is its rule's
// detail, in recordRules' order. It runs at every release of the pod lock:
// one switch, not a call per rule.
func brokenRule(p *PodWorkers, s *podSyncStatus) int {
	switch {
	case s.terminated && !s.terminationRequested:
		return 0
	case s.startedTerminating && !s.terminationRequested:
		return 1
	case s.terminated && !s.startedTerminating:
		return 2
	case s.finished && !s.terminated:
		return 3
	case s.finished && (s.working || s.inFlight || s.pendingUpdate != nil || s.updates != nil):
		return 4
	case s.terminated && len(s.notifyPostTerminating) > 0:
		return 5
	case s.terminationRequested && s.gracePeriod < 1:
		return 6
	case s.evicted && !s.terminationRequested:
		return 7
	case s.restartRequested && !s.terminationRequested:
		return 8
	case !s.finished && !p.stopped && s.updates == nil:
		return 9
	case s.inFlight && !s.working:
		return 10
	case s.pendingUpdate != nil && !s.working && !p.isWaitingStaticPodLocked(s):
		return 11
	case s.startedTerminating && s.inFlight && s.inFlightWork == SyncPodWork:
		return 12
	case s.terminationRequested && s.inFlight && s.inFlightWork == SyncPodWork && !s.cancelFired:
		return 13
	case s.inFlight && s.inFlightWork > s.workType():
		return 14
	case s.started && s.activeUpdate != nil && !s.finished && s.activeStatic() && !p.holdsFullName(s):
		return 15 // the map looked up only when it matters
	}
	return -1
}

// holdsFullName: the started entry of s's full name names s.
func (p *PodWorkers) holdsFullName(s *podSyncStatus) bool {
	holder, held := p.startedStaticPodsByFullname[s.fullname]
	return held && holder == s.uid
}

// CheckInvariants checks the internal invariants under the pod lock.
func (p *PodWorkers) CheckInvariants() error {
	p.podLock.Lock()
	defer p.podLock.Unlock()
	return p.CheckInvariantsLocked()
}

// CheckInvariantsLocked checks the internal invariants of every record and of
// the static-pod maps; the caller holds the pod lock (the simulated runtime
// calls it just before every release of the pod lock). It returns the first
// broken invariant as an *InvariantError, visiting records in UID order so
// that the message is deterministic. Whether any is broken does not depend
// on the order, so the check runs in map order first and sorts only to
// name the first broken one (the check runs at every release: sorting the
// keys each time was a tenth of a run's cost).
func (p *PodWorkers) CheckInvariantsLocked() error {
	p.staticChecked = p.staticHeldLocked()
	if p.invariantsHoldLocked() {
		return nil
	}
	p.broken = true
	return p.firstBrokenInvariantLocked()
}

// CheckInvariantsOfLocked is CheckInvariantsLocked after a critical section
// that changed only the records of touched, when the previous release was
// checked too: every other record held its invariants then and is the same
// now, and a per-record rule reads only its record, Shutdown's flag and the
// static-pod maps. So it checks the touched records alone, unless the pod
// workers are shut down, a static-pod map holds an entry now or did at the
// last check (those rules read other records), or a check ever found an
// invariant broken (the first broken one in UID order may then be an
// untouched record): then it checks everything.
// A broken invariant is reported as CheckInvariantsLocked reports it (the
// first in UID order). The caller vouches for touched; a record it leaves
// out is checked at the next release that touches it or checks everything
// (a SyncKnownPods, a kubelet restart, anything the caller cannot follow).
func (p *PodWorkers) CheckInvariantsOfLocked(touched []types.UID) error {
	if p.stopped || p.broken || p.staticChecked || p.staticHeldLocked() {
		return p.CheckInvariantsLocked()
	}
	for _, uid := range touched {
		if status, ok := p.records.get(uid); ok && !recordHolds(p, uid, status) {
			return p.CheckInvariantsLocked()
		}
	}
	return nil
}

// staticHeldLocked: a static-pod map holds an entry.
func (p *PodWorkers) staticHeldLocked() bool {
	return len(p.startedStaticPodsByFullname) > 0 || len(p.waitingToStartStaticPodsByFullname) > 0
}

// recordHolds: the record kept under uid holds every per-record rule.
func recordHolds(p *PodWorkers, uid types.UID, status *podSyncStatus) bool {
	if status.uid != uid {
		return false
	}
	return brokenRule(p, status) < 0
}

// invariantsHoldLocked: no invariant is broken (the answer is the same in
// any order). It runs at every release of the pod lock: the
// rules are indexed, not copied, and the static maps, mostly empty, are
// walked only when they hold an entry.
func (p *PodWorkers) invariantsHoldLocked() bool {
	for _, e := range p.records {
		if !recordHolds(p, e.uid, e.status) {
			return false
		}
	}
	if !p.staticHeldLocked() {
		return true
	}
	for fullname, uid := range p.startedStaticPodsByFullname {
		status, ok := p.records.get(uid)
		if !ok || status.finished || !status.started || status.fullname != fullname {
			return false
		}
	}
	for _, waiting := range p.waitingToStartStaticPodsByFullname {
		if len(waiting) == 0 {
			return false
		}
	}
	return true
}

// firstBrokenInvariantLocked is the first broken invariant, records in UID
// order, then the static-pod maps in full-name order.
func (p *PodWorkers) firstBrokenInvariantLocked() error {
	for _, uid := range p.sortedUIDsLocked() {
		status := p.records.at(uid)
		if status.uid != uid {
			return &InvariantError{"record-keyed-by-uid", uid, fmt.Sprintf("record holds uid %q", status.uid)}
		}
		if i := brokenRule(p, status); i >= 0 {
			rule := recordRules[i]
			return &InvariantError{rule.name, uid, fmt.Sprintf("%s (%s)", rule.detail, snapshotOf(status))}
		}
	}
	return p.checkStaticMapsLocked()
}

// checkStaticMapsLocked: a started entry names a live record of that full
// name that started and has not finished; wait lists are never empty.
func (p *PodWorkers) checkStaticMapsLocked() error {
	for _, fullname := range sortedKeys(p.startedStaticPodsByFullname) {
		uid := p.startedStaticPodsByFullname[fullname]
		status, ok := p.records.get(uid)
		switch {
		case !ok:
			return &InvariantError{"static-started-entry-live", uid, fmt.Sprintf("started entry of %q has no record", fullname)}
		case status.finished || !status.started || status.fullname != fullname:
			return &InvariantError{"static-started-entry-live", uid,
				fmt.Sprintf("started entry of %q points to a finished, unstarted or renamed record (%s)", fullname, snapshotOf(status))}
		}
	}
	for _, fullname := range sortedKeys(p.waitingToStartStaticPodsByFullname) {
		if len(p.waitingToStartStaticPodsByFullname[fullname]) == 0 {
			return &InvariantError{"static-wait-list-nonempty", "", fmt.Sprintf("empty wait list kept for %q", fullname)}
		}
	}
	return nil
}

// isWaitingStaticPodLocked reports a static pod that was refused by the
// full-name exclusion: it keeps its update pending while idle (#116995).
func (p *PodWorkers) isWaitingStaticPodLocked(s *podSyncStatus) bool {
	return !s.started && isStaticPod(s.pendingUpdate.Pod) &&
		slices.Contains(p.waitingToStartStaticPodsByFullname[s.fullname], s.uid)
}
