package realkubelet

import (
	"cmp"
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	kubetypes "k8s.io/kubernetes/pkg/kubelet/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/realkubelet/explain"
	"github.com/podsim/podsim/realkubelet/k5class"
	"github.com/podsim/podsim/realkubelet/planted"
	"github.com/podsim/podsim/realkubelet/podworkers"
	"github.com/podsim/podsim/realkubelet/script"
	"github.com/podsim/podsim/realkubelet/syncgate"
)

// A kubelet restart (the plan's Restart, with the restart component on)
// drops the kubelet process and starts a new one over the same fake
// runtime (d.running) and the same API server, as the simulated world does
// (world/restart.go):
//
//   - the new process gets a fresh real pod-workers instance (the same
//     linkname constructor), fresh gates and work queue, a fresh status
//     manager and pod manager (kstatus.New over the same API server),
//     fresh kubelet memory (admission, the managers' kill gate), and on a
//     node with graceful shutdown a node shutdown manager of its own,
//     started before the re-add (startKubelet; the old one is stopped);
//   - the old process is made inert, since goroutines cannot be killed:
//     its gates stop parking (every later callback of the old workers
//     returns an error at once, unrecorded), what was parked or held is
//     let go unrecorded until the old workers are idle, and then their
//     update channels are closed so their goroutines exit (nothing calls
//     the old pod workers any more, so nothing sends on a closed channel);
//     its kills' completions and killPodNow waits are set aside — never
//     recorded, never owed (a dead kubelet owes no liveness) — and its
//     killPodNow goroutines end on their own timeout on the bubble's clock;
//   - the tape records Restarted, and each process is judged as a history
//     of its own (tape.PerProcess; linjudge.Check's re-judging per process); the
//     kubelet oracle splits at Restarted itself; the driver's per-UID
//     evidence starts afresh;
//   - the new process re-admits every pod in config, in creation order
//     (HandlePodAdditions sorts its pods by creation time), each added to
//     the new pod manager first; a pod whose phase is terminal skips
//     admission and still reaches the workers as a create, so they see it
//     terminal (their first-sight shortcut).
//
// A restart during a node shutdown waits until the shutdown's processing
// ended and its kills returned (restartHeld, into the settle phase if
// need be; the old process's kills in flight are not modelled), and the
// new process starts while the node still shuts down: after Restarted and
// before the re-add, its manager starts and is told nothing
// (actors.InheritShutdown).
// A restart during an eviction turn is not modelled: it is skipped and
// counted (restartsSkipped), as is a second one while one is held.
func (d *Driver) restartKubelet() {
	if busy := d.actorsBusy(); busy && d.actors.ShuttingDown() && !d.restartHeld {
		d.restartHeld = true
		return
	} else if busy {
		d.restartsSkipped++
		return
	}
	old, holdWakes := d.gates, slices.ContainsFunc(d.Moves, func(m script.Move) bool { return m.Kind == script.MoveHoldWakes })
	old.MakeInert()
	d.retireProcess(old)

	d.gates = syncgate.New()
	d.cache = podworkers.Cache{Running: d.running}
	if d.opts.plant == planted.IdleCacheOnRestart {
		d.cache, d.planted = podworkers.Cache{}, true
	}
	d.pw = podworkers.New(d.gates, d.cache, d.gates.Enqueue)
	fn := d.gates.PassThrough
	if holdWakes {
		fn = d.gates.ChannelFn
	}
	if err := podworkers.SetWorkerChannelFn(d.pw, fn); err != nil && holdWakes {
		panic(err) // the hold-wakes move succeeded with the same tree
	}
	if len(d.ev.GhostFrom) > 0 {
		if d.pastGhosts == nil {
			d.pastGhosts = map[int]map[types.UID]int{}
		}
		d.pastGhosts[len(d.processStarts)-1] = d.ev.GhostFrom
	}
	d.resetEvidence()
	if d.actors.Shutdown != nil {
		d.actors.Shutdown.Stop() // its event loop dies with the process
		d.waitQuiet()
	}
	d.checkActors()
	prev := d.actors
	d.actors = newActors(d)
	d.actors.Check, d.actors.FirstAddAt = prev.Check, prev.FirstAddAt
	if prev.Shutdown != nil {
		d.actors.DelayInForce = prev.Shutdown.DelayInForce() // logind's configuration outlives the kubelet
	}
	if d.st != nil {
		d.st.Restart()
	}
	d.h.Emit(history.Restarted, "kubelet", 0, nil, nil)
	d.processStarts = append(d.processStarts, d.h.Seq+1)
	d.h.Emit(history.LockAcquired, "driver", 0, nil, nil) // the new history's, as at newTape
	if down, at := prev.NodeShuttingDown(); down {
		// The manager starts, and one told of the shutdown takes it in,
		// before the sync loop re-adds the pods (its Admit judges them).
		d.actors.InheritShutdown(prev, at, d.opts.restartLearns)
		d.waitQuiet()
	} else {
		d.startKubelet()
	}
	if d.st != nil {
		// The new config source starts with a LIST of the API: an echo the
		// old process still had due is no longer pending.
		d.applyEchoes(false)
	}
	d.readmit()
}

// actorsBusy: a manager has work left, or a kill is open or parked.
func (d *Driver) actorsBusy() bool {
	return !d.actors.Idle() || d.actors.Kills.Open() > 0 || len(d.actors.Kills.Pending()) > 0
}

// heldRestart makes the restart held during a node shutdown once the
// shutdown's processing ended and its kills returned, after a step.
func (d *Driver) heldRestart() {
	if d.restartHeld && !d.actorsBusy() {
		d.restartHeld = false
		d.restartKubelet()
		d.afterStep()
	}
}

// retireProcess lets the old workers run down inertly and ends their
// goroutines, and sets the old process's kills aside.
func (d *Driver) retireProcess(old *syncgate.Gates) {
	for {
		d.waitQuiet()
		parked, wakes := old.Parked(), old.Wakes()
		if len(parked)+len(wakes) == 0 {
			break
		}
		for _, uid := range wakes {
			old.ReleaseWake(uid)
		}
		for _, c := range parked {
			old.Release(c.UID, syncgate.ReturnError)
		}
	}
	old.CloseOpenWorkers()
	d.waitQuiet()
	d.deadCompletions += len(d.completions)
	d.completions = nil
	d.waits.Retire()
}

// resetEvidence forgets what the driver knew of the old process: every
// per-UID fact about the old workers. The runtime (running), the config
// source (pods) and the moves' bookkeeping (universe, lastMoved) stay.
func (d *Driver) resetEvidence() {
	d.lastGrace, d.evicted, d.lastUpdate = map[types.UID]int64{}, map[types.UID]bool{}, map[types.UID]int{}
	d.restartPending, d.lastFailed = map[types.UID]bool{}, map[types.UID]bool{}
	d.ev, d.naturalEnd, d.leastOffered = explain.NewEvidence(), map[types.UID]bool{}, map[types.UID]int64{}
	d.synced, d.checks.overlaps = false, 0
	clear(d.records) // the new workers hold none
	d.k5.Reset()
	for uid, on := range d.running {
		if on {
			d.ev.Inherited[uid] = true // GB's "the runtime has its containers"
		}
	}
}

// readmit hands every pod in config to the new workers, oldest first.
func (d *Driver) readmit() {
	var uids []types.UID
	for uid, p := range d.pods {
		if p.inConfig {
			uids = append(uids, uid)
		}
	}
	slices.SortFunc(uids, func(a, b types.UID) int {
		return cmp.Or(cmp.Compare(d.pods[a].created, d.pods[b].created), cmp.Compare(a, b))
	})
	for _, uid := range uids {
		p := d.pods[uid]
		if d.st != nil && !p.action.Static {
			// HandlePodAdditions adds a pod to the pod manager before
			// admission: a rejected one's Failed status has a pod to go to.
			d.st.Readd(uid)
		}
		terminal := p.phase == v1.PodSucceeded || p.phase == v1.PodFailed
		if !terminal && !d.admit(uid, k5class.Skip{}) {
			continue
		}
		if terminal {
			d.actors.Admitted[uid] = true // admitted before, never re-admitted
		}
		d.update(kubetypes.SyncPodCreate, uid)
	}
}
