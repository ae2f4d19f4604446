package vkworld

import (
	"errors"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/plan"
)

// errRequeue asks the queue to retry: a provider-initiated deletion waits
// for the status it was decided on to be the API's.
var errRequeue = errors.New("requeue")

// deleteKey is the delete queue's key: name/uid (V2: name alone).
func (c *controller) deleteKey(p apiPod) string {
	if c.w.bug("V2") {
		return p.name
	}
	return p.name + "/" + string(p.uid)
}

// onAdd is the informer's add handler: a fresh tracking entry, a sync.
func (c *controller) onAdd(p apiPod, initial bool) {
	if initial && p.deleting {
		c.w.mark(plan.MarkVKTerminatingAtStart)
		if c.w.bug("V3") {
			return // V3: a pod terminating at start-up is not synced
		}
	}
	c.known[p.name] = &knownPod{}
	c.syncQ.add(p.name)
}

// onUpdate is the informer's update handler: a status skipped as unchanged
// is written again if the API's differs; a deletion is synced.
func (c *controller) onUpdate(old, cur apiPod) {
	kp := c.known[cur.name]
	if kp == nil {
		return
	}
	if !c.w.bug("V4") && kp.skipped && kp.lastReceived != nil &&
		(cur.phase != kp.lastReceived.phase || cur.version != kp.lastReceived.version) {
		c.statusQ.add(cur.name)
		kp.skipped = false
	}
	if old.deleting != cur.deleting || old.grace != cur.grace {
		c.syncQ.add(cur.name)
	}
}

// onDelete is the informer's delete handler.
func (c *controller) onDelete(p apiPod) {
	delete(c.known, p.name)
	c.gone[p.name] = append(c.gone[p.name], p.uid)
	c.syncQ.add(p.name)
	c.deleteQ.forget(p.name + "/" + string(p.uid))
}

// enqueueStatus is the NotifyPods callback: wait (up to about 3 s) for the
// pod to be known, then record the status and queue its write, unless it
// is the one last received.
func (c *controller) enqueueStatus(pp provPod) {
	w := c.w
	c.notifying++
	defer func() { c.notifying-- }()
	kp := c.known[pp.name]
	for n := 0; kp == nil && n < notifyRetries; n++ {
		if w.bug("V1") || c.cancel.Fired() {
			return // V1: a status for a pod not yet known is dropped
		}
		c.inf.synced.Wait()
		if _, ok := c.inf.get(pp.name); !ok {
			return
		}
		w.mark(plan.MarkVKNotifyBeforeInformer)
		if c.cancel.WaitFor(notifyRetry) {
			return
		}
		kp = c.known[pp.name]
	}
	if kp == nil {
		return
	}
	if cur, ok := c.inf.get(pp.name); ok && cur.uid != pp.uid {
		// podsim's controller keeps the tracking entry for the pod under
		// the name: a status of another UID (an older pod the provider
		// still runs) would replace the current pod's last status, which
		// is then never written (virtual-kubelet's stores it by name: VJ).
		return
	}
	if last := kp.lastReceived; last != nil && *last == pp {
		kp.skipped = true
		if cur, ok := c.inf.get(pp.name); ok && cur.version != pp.version {
			w.mark(plan.MarkVKEditUnchanged)
		}
		return
	}
	kp.skipped, kp.lastReceived = false, &pp
	c.statusQ.add(pp.name)
}

// syncHandler syncs one pod from the API to the provider.
func (c *controller) syncHandler(name string) error {
	prov := c.w.prov
	// podsim's controller first deletes in the provider every UID its
	// informer saw deleted under this name (virtual-kubelet asks GetPod by
	// name: a stale provider cache misses the pod, and a pod re-created
	// under the name hides the old one, and either leaks).
	for len(c.gone[name]) > 0 {
		if err := prov.deletePod(c.gone[name][0]); err != nil && err != errNotFound {
			return err
		}
		c.gone[name] = c.gone[name][1:]
	}
	delete(c.gone, name)
	pod, ok := c.inf.get(name)
	if !ok {
		pp, err := prov.getPod(name)
		if err != nil || pp == nil {
			return err
		}
		if err := prov.deletePod(pp.uid); err != errNotFound {
			return err
		}
		return nil
	}
	return c.syncInProvider(pod)
}

func (c *controller) syncInProvider(pod apiPod) error {
	prov := c.w.prov
	if pod.deleting && pod.phase != v1.PodRunning {
		c.deleteQ.addNow(c.deleteKey(pod))
		return nil
	}
	kp := c.known[pod.name]
	if kp == nil {
		return nil
	}
	if u := kp.lastUsed; u != nil && u.uid == pod.uid && u.deleting == pod.deleting && u.grace == pod.grace {
		return nil
	}
	switch {
	case pod.deleting:
		if err := prov.deletePod(pod.uid); err != nil && err != errNotFound {
			return err
		}
		c.deleteQ.addAfter(c.deleteKey(pod), time.Duration(pod.grace)*time.Second)
	case terminal(pod.phase):
	default:
		pp, _ := prov.getPod(pod.name)
		if pp == nil || pp.uid != pod.uid {
			if err := prov.createPod(pod); err != nil && err != errAlreadyExists {
				return err
			}
		}
	}
	kp.lastUsed = &pod
	return nil
}

// deleteHandler is the delayed forced delete (grace 0, UID precondition)
// of a pod whose deletion grace expired or that no longer runs.
func (c *controller) deleteHandler(key string) error {
	name, uid, _ := strings.Cut(key, "/")
	pod, ok := c.inf.get(name)
	if !ok {
		return nil
	}
	if c.w.bug("V2") {
		uid = string(pod.uid) // V2: keyed by name, so whatever pod has the name now
	} else if string(pod.uid) != uid {
		return nil
	}
	expired := c.w.S.Elapsed() >= pod.deletedAt+time.Duration(pod.grace)*time.Second
	rv := 0
	if !expired {
		// Before the grace expires the delete is justified only by a
		// status that says the pod does not run: podsim's controller
		// makes it conditional on the object it read (virtual-kubelet's
		// is not, and removes a pod whose Running status landed since).
		if pod.phase == v1.PodRunning {
			c.syncQ.add(name)
			return nil
		}
		rv = pod.rv
	} else if pod.phase == v1.PodRunning {
		c.w.mark(plan.MarkVKGraceForced)
	}
	err := c.w.api.delete("controller", name, 0, types.UID(uid), rv)
	switch {
	case err == errConflict && rv > 0:
		return err // decide again, after a backoff, on a fresher cache
	case err == errNotFound || err == errConflict:
		return nil
	}
	return err
}

// statusHandler writes the provider's last status for a pod to the API,
// or deletes the API object when the provider deleted the pod by itself.
func (c *controller) statusHandler(name string) error {
	w := c.w
	pod, ok := c.inf.get(name)
	if !ok {
		return nil
	}
	kp := c.known[name]
	if kp == nil {
		return nil
	}
	last := kp.lastReceived
	if last == nil {
		if w.bug("V8") {
			// V8: a fresh entry replaced the one the status was queued for,
			// and the handler dereferences its nil last status.
			c.crash("runtime error: invalid memory address or nil pointer dereference")
			return nil
		}
		return nil // known, not yet heard of from the provider
	}
	pp := *last
	if pp.uid != pod.uid {
		return nil // a status of an older pod under this name
	}
	if pp.deleting && !pod.deleting && !w.bug("V6") {
		if pod.phase != pp.phase || pod.version != pp.version {
			if err := w.api.updateStatus(name, pod.uid, pod.rv, pp.phase, pp.version); err != nil && err != errNotFound {
				return err
			}
			return errRequeue
		}
		if err := w.api.delete("controller", name, 0, pod.uid, 0); err != nil && err != errNotFound && err != errConflict {
			return err
		}
		w.mark(plan.MarkVKProviderDeleted)
		return nil
	}
	if terminal(pod.phase) {
		return nil
	}
	err := w.api.updateStatus(name, pod.uid, pod.rv, pp.phase, pp.version)
	switch {
	case err == errNotFound:
		return nil
	case err != nil && w.bug("V5"):
		return nil // V5: a failed write is dropped; an unchanged status is never written again
	case err == nil && w.faultSeen:
		w.mark(plan.MarkVKProviderErrorHealed)
	}
	return err
}
