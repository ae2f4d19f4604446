package realkubelet

import (
	"context"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/record"
	"k8s.io/kubernetes/pkg/kubelet"

	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/oracle/latency"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/realkubelet/podworkers"
)

// killNowWait is one killPodNow call in flight: its goroutine, blocked in
// killPodNow's wait, sends the function's result on result (buffered).
type killNowWait struct {
	c      *completion
	callID int
	result chan error
	done   bool
	// R2, for the waits the driver started itself (killNow): when the
	// wait began and its timeout, max(10 s, 1.5 × grace); zero for a
	// manager's wait (deliver), which began when the manager called
	// killPodNow, before its kill was parked, at an instant not recorded.
	began, timeout time.Duration
}

// killRequest is killPodNow's UpdatePod, handed to the driver.
type killRequest struct {
	opts kubelet.UpdatePodOptions
	sent chan struct{} // closed once the driver performed it
}

// killNowWorkers are the pod workers as killPodNow sees them: its one
// UpdatePod is handed to the driver, which records and performs it (so the
// kill takes effect at a driver step, as every other client call), and
// returns once the driver did.
type killNowWorkers struct {
	kubelet.PodWorkers
	requests chan killRequest
}

func (w killNowWorkers) UpdatePod(_ context.Context, o kubelet.UpdatePodOptions) {
	r := killRequest{opts: o, sent: make(chan struct{})}
	w.requests <- r
	<-r.sent
}

// killNow runs the real killPodNow for a (the eviction manager's or the
// shutdown manager's call) in a goroutine of its own and performs the kill
// it sends. killPodNow's completion channel is send-only for the pod
// workers' sake, so the driver cannot watch it: the kill goes to the pod
// workers with the driver's channel c.ch instead, and a relay closes
// killPodNow's channel when c.ch closes (in the same step: synctest.Wait
// waits for the relay and for killPodNow's return).
func (d *Driver) killNow(a plan.Action, c *completion, decoy bool) {
	requests := make(chan killRequest)
	fn := podworkers.KillPodNow(d.ctx, killNowWorkers{PodWorkers: d.pw, requests: requests}, &record.FakeRecorder{})
	k := &killNowWait{c: c, result: make(chan error, 1)}
	var override *int64
	if a.Grace >= 0 {
		g := a.Grace
		override = &g
	}
	pod := d.podOf(a.UID)
	go func() { k.result <- fn(pod, a.Evict, override, func(*v1.PodStatus) {}) }()
	r := <-requests
	theirs := r.opts.KillPodOptions.CompletedCh
	r.opts.KillPodOptions.CompletedCh = c.ch
	if decoy {
		r.opts.KillPodOptions.CompletedCh = make(chan struct{})
	}
	if d.st == nil {
		r.opts.KillPodOptions.PodStatusFunc = nil // no status manager to apply it
	}
	d.updatePod(r.opts, c.id, "driver")
	go relay(c.ch, theirs, d.stop)
	close(r.sent)
	k.callID = d.h.Call(killNowGoroutine(k), ops.KillPodNowDone{UID: string(a.UID), ID: c.id})
	k.began, k.timeout = d.h.Elapsed(), latency.KillTimeout(killGrace(pod, override))
	d.killNows = append(d.killNows, k)
}

// killGrace is the grace killPodNow times its wait by: the override if
// the call has one, else the pod's own (0 if unset).
func killGrace(pod *v1.Pod, override *int64) int64 {
	switch {
	case override != nil:
		return *override
	case pod != nil && pod.Spec.TerminationGracePeriodSeconds != nil:
		return *pod.Spec.TerminationGracePeriodSeconds
	}
	return 0
}

// checkGaveUp is R2 on the real kubelet, in the one direction a poll can
// judge: a wait that timed out must have waited its whole timeout. The
// driver sees a return only at the poll after it, so the recorded wait is
// never shorter than the real one and a short one is the code's. (The
// simulated runs also check the other direction, and "exactly at the
// bound": polling cannot.)
func (d *Driver) checkGaveUp(k *killNowWait) {
	if k.timeout == 0 {
		return
	}
	if waited := d.h.Elapsed() - k.began; waited < k.timeout {
		d.report("direct", "R2", "", fmt.Sprintf("pod %s: killPodNow gave up after %v, before its timeout of %v (max(10 s, 1.5 × grace))",
			k.c.uid, waited, k.timeout))
	}
}

// relay closes theirs once ours is closed, or gives up when stop closes
// (the run is over and ours never closed).
func relay(ours <-chan struct{}, theirs chan<- struct{}, stop <-chan struct{}) {
	select {
	case <-ours:
		close(theirs)
	case <-stop:
	}
}

// pollKillNows ends the killPodNow calls that returned: nil (the
// completion fired) is Answer(true), its timeout error Answer(false).
func (d *Driver) pollKillNows() {
	for _, k := range d.deadKillNows {
		if k.done {
			continue
		}
		select {
		case <-k.result:
			k.done = true // a dead process's: never recorded
		default:
		}
	}
	for _, k := range d.killNows {
		if k.done {
			continue
		}
		select {
		case err := <-k.result:
			k.done = true
			d.h.Ret(killNowGoroutine(k), k.callID, ops.Answer(err == nil))
			if err != nil {
				d.checkGaveUp(k)
			}
		default:
		}
	}
}

func killNowGoroutine(k *killNowWait) string { return fmt.Sprintf("killpodnow/%d", k.c.id) }
