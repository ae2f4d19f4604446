package world

import "github.com/podsim/podsim/workers"

// Wrappers wrap what the pod workers of a world run on: how tests plant a
// fault outside the code under test (a syncer that fails one call for
// ever, a runtime that loses wake-ups, a work queue that forgets a pod),
// as a broken kubelet around correct pod workers would. A nil field keeps
// the world's own.
type Wrappers struct {
	Syncer  func(w *World, inner workers.Syncer) workers.Syncer
	Runtime func(w *World, inner workers.Runtime) workers.Runtime
	Queue   func(inner workers.WorkQueue) workers.WorkQueue
}

// Wrap rebuilds w's pod workers over the wrappers; call before Run, on a
// plan without kubelet restarts (a restart builds its pod workers afresh).
// A wrapped syncer is foreign to the settle phase's quiet rules, which
// then take the long way.
func (w *World) Wrap(p Wrappers) {
	var rt workers.Runtime = &worldRuntime{Runtime: w.RT, w: w}
	var syncer workers.Syncer = w.Runtime
	var q workers.WorkQueue = w.Queue
	if p.Runtime != nil {
		rt = p.Runtime(w, rt)
	}
	if p.Syncer != nil {
		syncer = p.Syncer(w, syncer)
		w.foreignSyncer = true
	}
	if p.Queue != nil {
		q = p.Queue(q)
	}
	w.PW = workers.New(workers.Config{Runtime: rt, Syncer: syncer, Cache: w.Runtime, Queue: q})
}
