package world

import (
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model"
)

// probe calls every public query method of the pod workers at the end of a
// critical section of the pod lock, from the goroutine that holds it
// (simrt.Runtime.Probe: no scheduling point, so the schedule is the one
// without it), and returns their answers for the LockReleasing event: the
// per-UID queries for every pod the plan named so far, PodsSynced, and
// IsPodForMirrorPodTerminatingByFullName for every full name among them.
// Known, which no query answers, is the pod workers' record list (the
// target's bookkeeping, history.Answers), read only while the internal
// invariants are on: in observable-only mode the probe leaves it false
// and the oracles derive it from the history (history.KnownFromHistory).
func (w *World) probe() *history.Probe {
	p := &history.Probe{}
	w.RT.Probe(func() {
		pw := w.PW
		var records []types.UID // sorted
		if !w.internalOff {
			records = pw.KnownUIDsLocked()
		}
		known := func(uid types.UID) bool { _, ok := slices.BinarySearch(records, uid); return ok }
		p.PodsSynced = pw.PodsSynced()
		uids := w.sortedUIDs()
		p.Pods = make([]history.PodAnswers, 0, len(uids))
		for _, uid := range uids {
			p.Pods = append(p.Pods, history.PodAnswers{UID: uid, Answers: history.Answers{Known: known(uid),
				KnownTerminated: pw.IsPodKnownTerminated(uid), CouldHaveRunning: pw.CouldHaveRunningContainers(uid),
				BeFinished: pw.ShouldPodBeFinished(uid), TerminationRequested: pw.IsPodTerminationRequested(uid),
				ContainersBeTerminating: pw.ShouldPodContainersBeTerminating(uid),
				RuntimeBeRemoved:        pw.ShouldPodRuntimeBeRemoved(uid), ContentBeRemoved: pw.ShouldPodContentBeRemoved(uid)}})
		}
		names := w.fullNames()
		p.Mirror = make([]history.MirrorAnswer, 0, len(names))
		for _, f := range names {
			p.Mirror = append(p.Mirror, history.MirrorAnswer{FullName: f, Terminating: pw.IsPodForMirrorPodTerminatingByFullName(f)})
		}
	})
	return p
}

// fullNames is the sorted full names of the pods the plan named so far,
// recomputed only when a pod was added (w.uids grows, never shrinks).
func (w *World) fullNames() []string {
	if w.probeNamesOf == len(w.uids) {
		return w.probeNames
	}
	names := map[string]bool{}
	for _, uid := range w.uids {
		names[model.Pod{Name: w.pods[uid].action.PodName(), Namespace: "default"}.FullName()] = true
	}
	w.probeNames, w.probeNamesOf = slices.Sorted(maps.Keys(names)), len(w.uids)
	return w.probeNames
}
