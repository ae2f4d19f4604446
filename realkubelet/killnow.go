package realkubelet

import (
	"slices"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/realkubelet/killwait"
)

// killNow runs the real killPodNow for a (the eviction manager's or the
// shutdown manager's call) in a goroutine of its own and performs the kill
// it sends (package killwait keeps its wait). killPodNow's completion
// channel is send-only for the pod workers' sake, so the driver cannot
// watch it: the kill goes to the pod workers with the driver's channel
// c.ch instead, and a relay closes killPodNow's channel when c.ch closes
// (in the same step: synctest.Wait waits for the relay and for
// killPodNow's return).
func (d *Driver) killNow(a plan.Action, c *completion, decoy bool) {
	var override *int64
	if a.Grace >= 0 {
		g := a.Grace
		override = &g
	}
	pod := d.podOf(a.UID)
	call := killwait.Start(d.ctx, d.pw, pod, a.Evict, override)
	ko := call.Opts.KillPodOptions
	theirs := ko.CompletedCh
	ko.CompletedCh = c.ch
	if decoy {
		ko.CompletedCh = make(chan struct{})
	}
	if d.st == nil {
		ko.PodStatusFunc = nil // no status manager to apply it
	}
	d.updatePod(call.Opts, c.id, "driver")
	d.waits.Relay(c.ch, theirs)
	call.Sent()
	d.waits.Add(call.Wait, c.id, a.UID, killwait.Timeout(pod, override))
}

// completionOf is the current process's completion with ID id (a
// killPodNow wait's, killwait.Wait.ID).
func (d *Driver) completionOf(id int) *completion {
	return d.completions[slices.IndexFunc(d.completions, func(c *completion) bool { return c.id == id })]
}
