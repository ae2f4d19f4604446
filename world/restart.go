package world

import (
	"cmp"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/workers"
	"github.com/podsim/podsim/workers/mutants"
	"github.com/podsim/podsim/world/fakeruntime"
	"github.com/podsim/podsim/world/simrt"
)

// A kubelet restart (SPEC §1.13) drops the kubelet process: the pod
// workers, their work queue and the kubelet's memory (admission, status
// manager) start afresh, while the container runtime keeps running and the
// API server keeps its objects. The simulation cannot kill goroutines, so
// the old process is made inert instead: its pod workers are shut down (each
// worker exits once its call in flight returns), its runtime adapter is
// detached from the real runtime state (a call still in flight changes
// nothing), and nothing it does reaches the event stream (every hook checks
// its epoch). The oracles see a Restarted event and judge the new pod
// workers as a fresh history (epochOracles).

// startEpoch builds the pod workers of the current epoch: a runtime adapter
// sharing the runtime state, a work queue, and the lock hooks that feed the
// event stream while the epoch is current.
func (w *World) startEpoch() {
	epoch := w.epoch
	w.epochFirstCall = w.calls + 1
	if epoch > 0 {
		w.Runtime = w.Runtime.Handover(w)
	}
	p := w.kept.parts.Next(func() *epochParts {
		p := &epochParts{}
		p.hooks = [2]func(string){p.afterLock, p.beforeUnlock}
		return p
	})
	*p = epochParts{rt: simrt.Runtime{S: w.S}, hooks: p.hooks, pw: p.pw, wq: p.wq} // simrt.New's
	w.RT = &p.rt
	p.wrt = worldRuntime{Runtime: w.RT, w: w, epoch: epoch}
	w.Queue = workers.RenewQueue(p.wq, &p.wrt)
	p.wq = w.Queue
	p.syncer = kubeletSyncer{Runtime: w.Runtime, w: w, epoch: epoch}
	p.queue = notedQueue{WorkQueue: w.Queue, w: w, epoch: epoch}
	p.cache = cacheView{w.Runtime, w}
	w.PW = workers.Renew(p.pw, workers.Config{Runtime: &p.wrt, Syncer: &p.syncer, Cache: &p.cache, Queue: &p.queue,
		NoAssertions: w.internalOff, Names: w.workerNames})
	p.pw = w.PW
	if w.workersMutant != "" {
		// The restarted kubelet runs the same (mutated) code.
		if err := mutants.Reintroduce(w.PW, w.workersMutant); err != nil {
			panic("world: " + err.Error()) // reintroduce checked the name already
		}
	}
	w.RT.AfterLock, w.RT.BeforeUnlock = p.hooks[0], p.hooks[1]
}

// afterLock and beforeUnlock are the lock hooks of an epoch's runtime: the
// pod lock's acquisitions and releases feed the event stream while the
// epoch is current.
func (p *epochParts) afterLock(name string) {
	if w := p.wrt.w; name == "podLock" && w.epoch == p.wrt.epoch {
		w.emit(history.LockAcquired, 0, nil, nil)
	}
}

func (p *epochParts) beforeUnlock(name string) {
	w := p.wrt.w
	if name != "podLock" || w.epoch != p.wrt.epoch {
		return
	}
	// The workers' internal invariants (unless they are off), of the
	// records the probe asks about (probe.Memo.CheckInvariants).
	if !w.internalOff {
		if err := w.probes.CheckInvariants(w.PW, w.sending()); err != nil {
			w.violate("internal", err.Error())
		}
	}
	w.killNowUpdateDone()
	if w.sending() { // else nobody reads the probe
		probe := w.probe()
		w.out = history.Event{Kind: history.LockReleasing, Probe: probe}
		w.sendOut()
	}
}

// restartKubelet is the Restart action, run as a sync-loop iteration (the
// config source delivers nothing while the process starts): the old pod
// workers stop, a new epoch begins, and every pod in config is ADDed
// again, in creation order (admission runs again, except for pods whose API
// phase is terminal; a terminal pod whose runtime is idle starts out
// terminated, SPEC §1.13).
func (w *World) restartKubelet() {
	// The switch is atomic (no scheduling point until Shutdown): nobody
	// may call the old pod workers, or see the new ones, under the wrong
	// epoch.
	old := w.PW
	w.epoch, w.restartedAt = w.epoch+1, w.S.Elapsed()
	w.startEpoch()
	if w.kube != nil {
		w.kube = newKubelet(w.kube.node)
		if w.nodeShutdown {
			// Logind announced the shutdown to the old process and does
			// not again: the new one learns of it only by asking at its
			// start (B17: it does not ask, kubernetes#122674).
			w.mark(plan.MarkRestartInShutdown)
			w.kube.learned = !w.Bugs.B17RestartForgetsShutdown
		}
	}
	w.emit(history.Restarted, 0, nil, nil)
	old.Shutdown()
	uids := slices.Clone(w.sortedUIDs())
	for _, uid := range uids {
		p := w.pod(uid)
		// "First added in the node shutdown" is the node's fact: it
		// holds across the restart while the shutdown does (K5).
		p.admitted, p.rejected, p.addedInShutdown = false, false, p.addedInShutdown && w.nodeShutdown
	}
	// HandlePodAdditions sorts by creation time.
	slices.SortStableFunc(uids, func(a, b types.UID) int { return cmp.Compare(w.pod(a).created, w.pod(b).created) })
	w.readding = true
	for _, uid := range uids {
		if w.pod(uid).inConfig {
			w.add(uid, false)
		}
	}
	w.readding = false
}

// epochParts are the adapters startEpoch makes for one kubelet process,
// in one allocation Renew keeps, and its lock hooks, made once.
type epochParts struct {
	rt     simrt.Runtime
	wrt    worldRuntime
	syncer kubeletSyncer
	queue  notedQueue
	cache  cacheView
	hooks  [2]func(name string) // afterLock, beforeUnlock
	// pw and wq are the epoch's pod workers and work queue, built in the
	// memory of this slot's last ones (workers.Renew, RenewQueue): a slot
	// is handed out again only in a later run (World.Renew resets the
	// slab), when nothing of the run before uses them.
	pw *workers.PodWorkers
	wq *workers.Queue
}

// kubeletSyncer is the Syncer one epoch's pod workers call: the fake
// runtime, plus the status manager's share of SyncTerminatingPod (the kill's
// status function edits the status the kubelet publishes).
type kubeletSyncer struct {
	*fakeruntime.Runtime
	w     *World
	epoch int
}

func (s *kubeletSyncer) SyncTerminatingPod(cancel workers.Event, pod *v1.Pod, status *workers.PodStatus, grace int64, fn workers.PodStatusFunc) error {
	err := s.Runtime.SyncTerminatingPod(cancel, pod, status, grace, fn)
	if err == nil && fn != nil && s.w.kube != nil && s.w.epoch == s.epoch {
		s.w.kube.statusFnApplied(pod.UID, fn)
	}
	return err
}

// notedQueue is the work queue one epoch's pod workers are handed: each
// Enqueue is noted (history.Requeued) while the epoch is current, for the
// requeue-delay check (oracle/latency), then queued.
type notedQueue struct {
	workers.WorkQueue
	w     *World
	epoch int
}

func (q *notedQueue) Enqueue(uid types.UID, delay time.Duration) {
	if q.w.epoch == q.epoch {
		q.w.note(q.w.kept.boxes.Requeued(uid, delay))
	}
	q.WorkQueue.Enqueue(uid, delay)
}
