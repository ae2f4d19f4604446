package realkubelet

import (
	"fmt"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/realkubelet/planted"
	"github.com/podsim/podsim/realkubelet/syncgate"
	"k8s.io/apimachinery/pkg/types"
)

// The sync callbacks as the driver sees them: a callback that reached its
// gate (began), its release with an outcome (releaseCall) and what its
// return changes (the fake runtime, the incarnation, the open
// completions), and the fires a step caused (pollFires).

// parked: a callback of uid is parked at its gate.
func (d *Driver) parked(uid types.UID) bool {
	for _, c := range d.gates.Parked() {
		if c.UID == uid {
			return true
		}
	}
	return false
}

// releaseCall records the callback's return and lets it return.
func (d *Driver) releaseCall(uid types.UID, o syncgate.Outcome) {
	var call *syncgate.Call
	for _, c := range d.gates.Parked() {
		if c.UID == uid && call == nil {
			call = c
		}
	}
	if o == syncgate.ReturnTerminal && call.Fn != ops.SyncPod {
		o = syncgate.ReturnOK
	}
	told := o // what the pod workers are told
	if d.opts.plant == planted.LyingSyncer && !d.planted && call.Fn == ops.SyncTerminatingPod && o == syncgate.ReturnOK {
		d.planted, told = true, syncgate.ReturnError
	}
	out := ops.OK
	switch o {
	case syncgate.ReturnError:
		out = ops.Failed
	case syncgate.ReturnCanceled:
		out = ops.Canceled
	}
	d.h.Point(history.CallbackEnd, "worker/"+string(uid), ops.SyncEnd{UID: string(uid), Fn: call.Fn,
		Outcome: out, IsTerminal: o == syncgate.ReturnTerminal})
	d.noteSucceeded(call, o) // before runtimeAfter, which may end the record
	d.runtimeAfter(call, o)
	d.lastFailed[uid] = o == syncgate.ReturnError || o == syncgate.ReturnCanceled
	d.ev.DroppedRetry[uid] = false
	if o == syncgate.ReturnTerminal {
		d.naturalEnd[uid] = true
	}
	if o == syncgate.ReturnOK && call.Fn == ops.SyncTerminatedPod {
		delete(d.restartPending, uid)
	}
	if told == syncgate.ReturnOK && call.Fn == ops.SyncTerminatingRuntimePod {
		delete(d.records, uid) // completeTerminatingRuntimePod forgets it
	}
	if told == syncgate.ReturnOK && call.RecordEnded && d.records[uid] {
		// The call's record ended under it and the UID has another: its
		// completion looks the record up by UID and lands on that one.
		switch call.Fn {
		case ops.SyncTerminatingPod:
			d.ev.CompletedOntoNext[uid] = true // completeTerminating
		case ops.SyncTerminatedPod:
			d.ev.FinishedOntoNext[uid] = true // completeTerminated
		}
	}
	if d.ev.Adopted(uid) && call.RecordEnded {
		// The released goroutine's record ended under its call (only
		// after GE's adoption can two goroutines share a UID): it goes on
		// with the UID's current record, as an adopting goroutine does,
		// and with held wake-ups it is the only one of the UID that can
		// begin a call in this step (hold swarm-restart seed 3,066).
		d.lateNow = uid
	}
	if d.st != nil {
		d.st.CallEnded(call, told)
	}
	d.gates.Release(uid, told)
}

// runtimeAfter updates the fake runtime: a SyncPod that did not fail may
// have started containers; a terminating call that succeeded stopped them.
func (d *Driver) runtimeAfter(c *syncgate.Call, o syncgate.Outcome) {
	switch c.Fn {
	case ops.SyncPod:
		if o == syncgate.ReturnOK || o == syncgate.ReturnTerminal {
			d.running[c.UID] = true
		}
	case ops.SyncTerminatingPod, ops.SyncTerminatingRuntimePod:
		if o == syncgate.ReturnOK {
			delete(d.running, c.UID)
		}
	}
	if o == syncgate.ReturnOK && (c.Fn == ops.SyncTerminatedPod || c.Fn == ops.SyncTerminatingRuntimePod) {
		d.incarnationOver(c.UID)
	}
}

// incarnationOver forgets what the checks keep per incarnation of uid: it
// finished, or its record is gone (purged, runtime-only pod done).
func (d *Driver) incarnationOver(uid types.UID) {
	delete(d.lastGrace, uid)
	delete(d.leastOffered, uid)
	delete(d.naturalEnd, uid)
	d.ev.IncarnationOver(uid)
	for _, c := range d.gates.Parked() {
		if c.UID == uid {
			c.RecordEnded = true
		}
	}
	for _, c := range d.completions {
		if c.uid == uid && !c.fired {
			c.recordOver = true
		}
	}
	if d.running[uid] {
		// No terminating call stopped the UID's containers (a restart cut
		// it short, or the record went first): the next incarnation begins
		// with them, as a new process does (resetEvidence).
		d.ev.Inherited[uid] = true
	}
}

// noteSucceeded marks the open completions of the UID whose terminating
// call succeeded after their kill, in the record the kill joined
// (explain.Evidence.OpenCompletion, G2): a call of a later record closes
// none of them (plain api-shapes seed 2,645: a SyncTerminatingPod of the
// record made after completeTerminatingRuntimePod forgot the kill's).
func (d *Driver) noteSucceeded(c *syncgate.Call, o syncgate.Outcome) {
	if o != syncgate.ReturnOK {
		return
	}
	for _, comp := range d.completions {
		if comp.uid != c.UID || comp.fired || comp.recordOver {
			continue
		}
		switch c.Fn {
		case ops.SyncTerminatingPod:
			comp.terminatedAfter = true
		case ops.SyncTerminatingRuntimePod:
			comp.runtimeAfter = true
		}
	}
}

// pollFires records every completion that fired and every cancellation of
// a parked callback's context since the last poll, in ID and UID order.
func (d *Driver) pollFires() {
	for _, c := range d.completions {
		if c.fired {
			continue
		}
		select {
		case <-c.ch:
			c.fired = true
			d.h.Point(history.Fired, "fired", ops.CompletionFired{UID: string(c.uid), ID: c.id})
		default:
		}
	}
	for _, c := range d.gates.Parked() {
		if c.Begun && !c.CancelNoted && c.Ctx.Err() != nil {
			c.CancelNoted = true
			d.h.Point(history.Fired, "fired", ops.CancelFired{UID: string(c.UID)})
		}
	}
}

// began records a callback that reached its gate.
func (d *Driver) began(c *syncgate.Call) {
	b := ops.SyncBegin{UID: string(c.UID), Fn: c.Fn, Type: ops.UpdateType(c.Type)}
	if c.Pod != nil {
		b.Version = history.ModelPod(c.Pod).Version
	}
	if c.Grace != nil {
		b.Grace = *c.Grace
	}
	d.noteSyncPod(c)
	if d.st != nil {
		d.st.CallBegan(c)
	}
	d.h.Point(history.CallbackBegin, "worker/"+string(c.UID), b)
	c.BeganStep = d.Step
	if c.Fn == ops.SyncPod || c.Fn == ops.SyncTerminatingPod {
		d.ev.StartedInc[c.UID] = true
	}
	if c.UID == d.lateNow {
		// Only the woken goroutine ran in this step: the callback is its.
		c.Ghost = true
		d.ev.NoteGhost(c.UID, d.Step)
		d.report("direct", "S1", "GE", fmt.Sprintf(
			"pod %s: %s began in a worker of an earlier incarnation, which read its signal late and took the current record", c.UID, c.Fn))
	}
	d.checkBegin(c)
}
