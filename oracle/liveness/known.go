package liveness

import (
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
)

// knownCall is a SyncKnownPods between taking the pod lock and returning.
type knownCall struct {
	at        time.Duration
	desired   []string    // the call's desired UIDs, sorted
	mustPurge []types.UID // finished and (not desired or restart requested) when it began
}

// knownReturned checks that a SyncKnownPods purged what it had to (L2:
// finished and not desired; L4: finished and asked for a restart).
func (l *liveness) knownReturned(ev *history.Event) {
	kc, _ := l.known.Get(ev.Goroutine)
	l.known.Del(ev.Goroutine)
	defer func() { l.freeKnown = kc }() // nothing holds it any more
	out, _ := ev.Output.(ops.KnownPods)
	for _, uid := range kc.mustPurge {
		p := l.pod(uid)
		k, stillKnown := findKnown(out, uid)
		if stillKnown && p.keptReported {
			continue // every later SyncKnownPods keeps it too: once is the story
		}
		p.keptReported = p.keptReported || stillKnown
		switch {
		case !stillKnown && kc.isDesired(uid):
			l.checked[4]++
		case !stillKnown:
			l.checked[2]++
		case kc.isDesired(uid):
			l.violate("L4", ev, "pod %s: restart requested at %v (a create while termination was requested), finished at %v; "+
				"SyncKnownPods at %v kept it (%s, desired) instead of purging it: it is never restarted",
				uid, p.restartAt, p.finishedAt, kc.at, k.State)
		default:
			l.violate("L2", ev, "pod %s: finished at %v and not desired; SyncKnownPods at %v kept it (%s) instead of purging it",
				uid, p.finishedAt, kc.at, k.State)
		}
	}
}

// newKnownCall is the record of a SyncKnownPods taking the pod lock at
// at: the record of one that returned (freeKnown), emptied, when there is
// one.
func (l *liveness) newKnownCall(at time.Duration, desired []string) *knownCall {
	kc := l.freeKnown
	if kc == nil {
		return &knownCall{at: at, desired: desired}
	}
	l.freeKnown = nil
	*kc = knownCall{at: at, desired: desired, mustPurge: kc.mustPurge[:0]}
	return kc
}

// isDesired reports whether the call lists uid as desired.
func (kc *knownCall) isDesired(uid types.UID) bool {
	_, ok := history.Search(kc.desired, string(uid))
	return ok
}

// findKnown is uid's entry in SyncKnownPods' result (the last one, should
// it list uid twice): a binary search in a result sorted by UID, as the
// workers return it, else a scan.
func findKnown(out ops.KnownPods, uid types.UID) (ops.KnownPod, bool) {
	byUID := func(k ops.KnownPod, u string) int { return strings.Compare(k.UID, u) }
	if slices.IsSortedFunc(out, func(a, b ops.KnownPod) int { return strings.Compare(a.UID, b.UID) }) {
		// The last of equal entries: the one before the first greater UID.
		i, _ := slices.BinarySearchFunc(out, string(uid)+"\x00", byUID)
		if i > 0 && out[i-1].UID == string(uid) {
			return out[i-1], true
		}
		return ops.KnownPod{}, false
	}
	for i := len(out) - 1; i >= 0; i-- {
		if out[i].UID == string(uid) {
			return out[i], true
		}
	}
	return ops.KnownPod{}, false
}
