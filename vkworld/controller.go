package vkworld

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
)

// The NotifyPods callback's wait for a pod the controller does not know
// yet: every notifyRetry, at most notifyRetries times (about 3 s).
const (
	notifyRetry   = 151 * time.Millisecond
	notifyRetries = 20
	// NotifyWait is the callback's longest wait for a pod once the
	// informer has synced.
	NotifyWait = notifyRetries * notifyRetry
)

func fmtEpoch(name string, epoch int) string { return fmt.Sprintf("%s#%d", name, epoch) }

// knownPod is the controller's tracking entry of a pod (by name): the
// last status the provider notified, the last pod object synced to the
// provider, and whether a notification was skipped as unchanged.
type knownPod struct {
	lastReceived *provPod
	lastUsed     *apiPod
	skipped      bool
}

// controller is one run of the pod controller (one epoch): its informer,
// tracking map and three queues, and Ready/Done.
type controller struct {
	w                       *World
	epoch                   int
	inf                     *informer
	known                   map[string]*knownPod
	gone                    map[string][]types.UID // by name: the UIDs the informer saw deleted, not yet deleted in the provider
	syncQ, deleteQ, statusQ *queue
	ready, done, cancel     *sim.Event
	workers                 int
	workersLeft             int
	workersDone             *sim.Event
	notifying               int // NotifyPods callbacks in progress
	err                     string
	crashed                 string // the crash's panic value: the process is dead (crash.go)
}

func newController(w *World, epoch int) *controller {
	c := &controller{w: w, epoch: epoch, known: map[string]*knownPod{}, gone: map[string][]types.UID{}, workers: max(w.plan.VK.Workers, 1),
		ready: w.S.NewEvent(fmtEpoch("vk/ready", epoch)), done: w.S.NewEvent(fmtEpoch("vk/done", epoch)),
		cancel: w.S.NewEvent(fmtEpoch("vk/cancel", epoch)), workersDone: w.S.NewEvent(fmtEpoch("vk/workers-done", epoch))}
	c.inf = newInformer(w, epoch)
	// Each queue has its own rate limiter (V7: one shared by the three, so
	// one queue's Forget resets another's backoff for the same key).
	shared := newLimiter(w.S.Elapsed)
	lim := func() *limiter {
		if w.bug("V7") {
			return shared
		}
		return newLimiter(w.S.Elapsed)
	}
	c.syncQ = newQueue(w, fmtEpoch("vk/sync", epoch), lim())
	c.deleteQ = newQueue(w, fmtEpoch("vk/delete", epoch), lim())
	c.statusQ = newQueue(w, fmtEpoch("vk/status", epoch), lim())
	return c
}

// run is the controller's Run: register the NotifyPods callback, wait for
// the informer's sync, add the handlers, delete dangling pods, start the
// queues' workers, be Ready, and on cancel stop and close Done.
func (c *controller) run() {
	w := c.w
	w.note(history.VKStarted{Epoch: c.epoch})
	w.prov.register(c.epoch, c.enqueueStatus)
	w.S.GoDaemon(c.inf.name, c.inf.run)
	w.S.GoDaemon(c.inf.name+"/resync", func() { c.inf.resync(c.cancel) })
	c.inf.synced.Wait()
	if w.bug("V10") {
		// V10: the controller lists the cache itself, deletes dangling pods,
		// and only then adds its handlers, with no replay: pods that
		// reached the cache in between are never handed to it.
		listed := c.inf.cached()
		c.deleteDanglingPods()
		for _, p := range listed {
			c.onAdd(p, true)
		}
		c.inf.addHandlers(c, false)
	} else {
		c.inf.addHandlers(c, true)
		c.deleteDanglingPods()
	}
	c.workersLeft = 3 * c.workers
	for _, q := range []struct {
		q *queue
		h func(string) error
	}{{c.syncQ, c.syncHandler}, {c.deleteQ, c.deleteHandler}, {c.statusQ, c.statusHandler}} {
		for i := 0; i < c.workers; i++ {
			w.S.Go(fmt.Sprintf("%s/worker%d", q.q.name, i), func() { c.work(q.q, q.h) })
		}
	}
	c.ready.Fire()
	w.note(history.VKReady{Epoch: c.epoch})
	c.cancel.Wait()
	if c.crashed != "" {
		return // a dead process closes nothing
	}
	for _, q := range []*queue{c.syncQ, c.deleteQ, c.statusQ} {
		q.shutdown()
	}
	c.workersDone.Wait()
	c.inf.stop()
	if w.prov.callback != nil && w.ctrl == c {
		w.prov.callback = nil
	}
	c.done.Fire()
	w.note(history.VKDone{Epoch: c.epoch, Err: c.err})
}

// work is one worker of a queue.
func (c *controller) work(q *queue, handle func(string) error) {
	for {
		key, ok := q.get()
		if !ok {
			break
		}
		err := handle(key)
		if c.crashed != "" {
			return // the process died meanwhile: this worker never comes back
		}
		if q == c.syncQ && err == nil && c.statusQ.requeues[key] > 0 {
			c.w.mark(plan.MarkVKSyncedDuringRetry)
		}
		q.done(key, err)
	}
	if c.workersLeft--; c.workersLeft == 0 {
		c.workersDone.Fire()
	}
}

// stop cancels the controller's context and waits for Done.
func (c *controller) stop() {
	c.w.note(history.VKCancelled{Epoch: c.epoch})
	c.cancel.Fire()
	if c.crashed == "" {
		c.done.Wait()
	}
}

// idle reports whether the controller has nothing left to do.
func (c *controller) idle() bool {
	return c.syncQ.busy()+c.deleteQ.busy()+c.statusQ.busy() == 0 && c.notifying == 0 &&
		(c.inf.wt == nil || len(c.inf.wt.events) == 0)
}

func (c *controller) queued() int { return c.syncQ.busy() + c.deleteQ.busy() + c.statusQ.busy() }

// deleteDanglingPods deletes the provider's pods that have no API object
// (by name and UID), one goroutine each, at most workers at a time. A
// failed call is retried (podsim's controller; virtual-kubelet's is best
// effort), until the controller is cancelled.
func (c *controller) deleteDanglingPods() {
	w := c.w
	var pps []provPod
	for n := 0; ; n++ {
		var err error
		if pps, err = w.prov.getPods(); err == nil || c.cancel.WaitFor(BaseBackoff<<min(n, 10)) {
			break
		}
	}
	var dangling []provPod
	for _, pp := range pps {
		if p, ok := c.inf.get(pp.name); !ok || p.uid != pp.uid {
			dangling = append(dangling, pp)
		}
	}
	if len(dangling) == 0 {
		return
	}
	left, all := len(dangling), w.S.NewEvent(fmtEpoch("vk/dangling", c.epoch))
	tokens, free := c.workers, w.S.NewSignal(fmtEpoch("vk/dangling-sem", c.epoch))
	for _, pp := range dangling {
		w.S.Go(fmtEpoch("vk/dangling/"+string(pp.uid), c.epoch), func() {
			for tokens == 0 {
				free.Wait()
			}
			tokens--
			for n := 0; ; n++ {
				err := w.prov.deletePod(pp.uid)
				if err == nil {
					w.mark(plan.MarkVKDanglingDeleted)
				}
				if err == nil || err == errNotFound || c.cancel.WaitFor(BaseBackoff<<min(n, 10)) {
					break
				}
			}
			tokens++
			free.Notify()
			if left--; left == 0 {
				all.Fire()
			}
		})
	}
	all.Wait()
}
