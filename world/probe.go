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
		known := map[types.UID]bool{}
		if !w.internalOff {
			for _, uid := range pw.KnownUIDsLocked() {
				known[uid] = true
			}
		}
		p.PodsSynced = pw.PodsSynced()
		names := map[string]bool{}
		for _, uid := range w.sortedUIDs() {
			p.Pods = append(p.Pods, history.PodAnswers{UID: uid, Answers: history.Answers{Known: known[uid],
				KnownTerminated: pw.IsPodKnownTerminated(uid), CouldHaveRunning: pw.CouldHaveRunningContainers(uid),
				BeFinished: pw.ShouldPodBeFinished(uid), TerminationRequested: pw.IsPodTerminationRequested(uid),
				ContainersBeTerminating: pw.ShouldPodContainersBeTerminating(uid),
				RuntimeBeRemoved:        pw.ShouldPodRuntimeBeRemoved(uid), ContentBeRemoved: pw.ShouldPodContentBeRemoved(uid)}})
			names[model.Pod{Name: w.pods[uid].action.PodName(), Namespace: "default"}.FullName()] = true
		}
		for _, f := range slices.Sorted(maps.Keys(names)) {
			p.Mirror = append(p.Mirror, history.MirrorAnswer{FullName: f, Terminating: pw.IsPodForMirrorPodTerminatingByFullName(f)})
		}
	})
	return p
}
