package vkworld

import (
	"cmp"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/plan"
)

// Fault points (BUGGIFY) of the VK world: faults tied to a situation of the
// pod controller's races rather than drawn at a flat rate, as the fake
// runtime's (world/fakeruntime/faultpoints.go). Each is switched on for the
// whole run, or not, by one draw of the fault stream (plan.DrawFaultPoints:
// 1 in plan.FaultPointOneIn), made before anything else of the run draws
// (World.Run), so the fault plan is recorded with the run's fault choices,
// replays from them and shrinks like any of them (choice 0 is "off"). A
// point is drawn only when the plan's own faults allow its kind of fault —
// slow provider calls, errors, informer lag — and it only moves the world
// within what they allow: a provider call is slow for at most
// Faults.MaxDelay and only while the faults are on, an error is the
// transient error the plan could draw then, an informer event lags at most
// the plan's InformerLag (the largest lag its draw can give). So a correct
// controller stays correct under any of them. A point reads only the plan's
// actions and the API server's and provider's own state, never the
// controller's. A point that fires fires an event named
// "faultpoint/<point>/<call>/<uid>", so the trace shows it.
type FaultPoint int

const (
	// SlowCreateUnderDelete: a provider CreatePod that begins while a
	// client delete of its pod or a controller restart is planned within
	// Faults.MaxDelay is slow until just after it: the delete lands while
	// the pod is created in the provider.
	SlowCreateUnderDelete FaultPoint = iota
	// SlowDeleteUnderRecreate: a provider DeletePod that begins while a
	// pod is planned to be created under its pod's name (or a restart)
	// within Faults.MaxDelay is slow until just after it: the re-create
	// lands while the old pod is deleted in the provider (V2, V8).
	SlowDeleteUnderRecreate
	// SlowGetPodsUnderCreate: a provider GetPods (the controller's list
	// of the provider's pods at start-up, to delete dangling ones) that
	// begins while a client create is planned within Faults.MaxDelay (less
	// the largest informer lag) is slow until the create's watch event has
	// surely reached the informer: a pod is created while the controller
	// lists the provider's pods (V10).
	SlowGetPodsUnderCreate
	// LateEventUnderDelete: a watch event of a pod whose delete (by a
	// client or the provider) or re-create under its name is planned
	// before the event's largest lag ends is delivered at that largest lag:
	// the controller meets the stale event after the delete landed (VF,
	// V8).
	LateEventUnderDelete
	// ErrorStatusWhileDeleting: the first two status writes of a pod whose
	// API object has its deletion timestamp that would land fail with the
	// transient error: the status queue's backoff grows while the sync
	// queue works the deletion on the same key (V7).
	ErrorStatusWhileDeleting
	// ErrorStatusRetry: a status write that retries a failed one (the
	// pod's last status write failed, by a conflict or a drawn error) and
	// would land fails once more with the transient error (never twice in
	// a row): the backoff grows while the other queues and notifications
	// work the same key (V5, V7).
	ErrorStatusRetry
	nFaultPoints
)

var faultPointNames = [...]string{"slow-create-under-delete", "slow-delete-under-recreate", "slow-getpods-under-create",
	"late-event-under-delete", "error-status-while-deleting", "error-status-retry"}

func (p FaultPoint) String() string { return faultPointNames[p] }

// FaultPoints lists every fault point of the VK world.
func FaultPoints() []FaultPoint { return plan.AllFaultPoints(nFaultPoints) }

// faultPoints is a run's fault plan and the state its situations need.
type faultPoints struct {
	on           plan.FaultPointsOn[FaultPoint]
	failedDelete map[types.UID]int         // how often ErrorStatusWhileDeleting fired for the UID
	lastStatus   map[types.UID]writeResult // how the UID's last status write ended
}

// writeResult is how a status write ended (the zero value: it landed, or
// none was made).
type writeResult int

const (
	writeLanded writeResult = iota
	writeFailed             // by a conflict or a drawn error
	writeFailedByPoint
)

// FaultPointsOn arms the fault points for this run (call before Run, which
// draws which of them are on).
func (w *World) FaultPointsOn() {
	w.points = &faultPoints{failedDelete: map[types.UID]int{}, lastStatus: map[types.UID]writeResult{}}
}

// FaultPointsDrawn reports which fault points this run switched on (none
// before Run or when they were not armed).
func (w *World) FaultPointsDrawn() []FaultPoint {
	if w.points == nil {
		return nil
	}
	return w.points.on.List()
}

// maxLag is the largest informer lag the plan's draw can give (0: none).
func (w *World) maxLag() time.Duration { return maxLag(w.plan) }

func maxLag(pl plan.Plan) time.Duration {
	return pl.VK.InformerLag / (50 * time.Millisecond) * (50 * time.Millisecond)
}

// ApplicablePoints are the points plan pl's faults allow, in the order the
// run's fault stream draws whether each is on (its first choices).
func ApplicablePoints(pl plan.Plan) []FaultPoint {
	return plan.ApplicableFaultPoints(nFaultPoints, func(p FaultPoint) bool { return applies(p, pl) })
}

// applies reports whether plan pl's faults allow point p.
func applies(p FaultPoint, pl plan.Plan) bool {
	f := pl.Faults
	switch p {
	case SlowCreateUnderDelete, SlowDeleteUnderRecreate, SlowGetPodsUnderCreate:
		return f.SlowRate > 0 && f.MaxDelay > 0
	case LateEventUnderDelete:
		return maxLag(pl) > 0
	case ErrorStatusWhileDeleting, ErrorStatusRetry:
		return f.ErrorRate > 0
	}
	return false
}

// drawPoints draws the fault plan, from the fault stream: one draw per
// applicable point (plan.DrawFaultPoints).
func (w *World) drawPoints() { w.points.on = plan.DrawFaultPoints(w.faults, ApplicablePoints(w.plan)) }

// pointOn reports whether point p is armed and on.
func (w *World) pointOn(p FaultPoint) bool { return w.points != nil && w.points.on.On(p) }

// fire shows point p firing in the trace.
func (w *World) fire(p FaultPoint, call string, uid types.UID) {
	w.S.NewEvent(fmt.Sprintf("faultpoint/%s/%s/%s", p, call, uid)).Fire()
}

// firstPlanned is the first plan action after now and before end that
// match says lands, if any.
func (w *World) firstPlanned(end time.Duration, match func(plan.Action) bool) (plan.Action, bool) {
	now := w.S.Elapsed()
	for _, a := range w.plan.Actions {
		if a.At > now && a.At < end && match(a) {
			return a, true
		}
	}
	return plan.Action{}, false
}

// recreates: a create of another pod under name.
func recreates(a plan.Action, uid types.UID, name string) bool {
	return a.Kind == plan.VKCreate && a.Name == name && a.UID != uid
}

// slowPoint runs the slow points of provider call op on uid (name: its
// pod's name; "" for a GetPods); slept means the call took its time (no
// flat slow draw).
func (w *World) slowPoint(op string, uid types.UID, name string) (slept bool) {
	if !w.faultsOn() {
		return false
	}
	var p FaultPoint
	var match func(plan.Action) bool
	margin := time.Millisecond // past the action's time
	switch {
	case op == "create" && w.pointOn(SlowCreateUnderDelete):
		p, match = SlowCreateUnderDelete, func(a plan.Action) bool {
			return a.Kind == plan.VKRestart || a.Kind == plan.VKDelete && a.UID == uid
		}
	case op == "delete" && w.pointOn(SlowDeleteUnderRecreate):
		p, match = SlowDeleteUnderRecreate, func(a plan.Action) bool {
			return a.Kind == plan.VKRestart || recreates(a, uid, name)
		}
	case op == "list" && w.pointOn(SlowGetPodsUnderCreate):
		p, match = SlowGetPodsUnderCreate, func(a plan.Action) bool { return a.Kind == plan.VKCreate }
		margin += w.maxLag() // until the create's event surely reached the informer
	default:
		return false
	}
	now := w.S.Elapsed()
	a, ok := w.firstPlanned(now+w.plan.Faults.MaxDelay-margin, match)
	if !ok {
		return false
	}
	w.fire(p, op, cmp.Or(uid, a.UID))
	w.S.Sleep(a.At - now + margin)
	return true
}

// eventLag is LateEventUnderDelete's lag for ev, if it fires.
func (w *World) eventLag(ev watchEvent) (time.Duration, bool) {
	if !w.pointOn(LateEventUnderDelete) {
		return 0, false
	}
	uid, name := ev.pod.uid, ev.pod.name
	_, ok := w.firstPlanned(ev.at+w.maxLag(), func(a plan.Action) bool {
		return (a.Kind == plan.VKDelete || a.Kind == plan.VKProviderDelete) && a.UID == uid || recreates(a, uid, name)
	})
	if !ok {
		return 0, false
	}
	w.fire(LateEventUnderDelete, "event-"+ev.kind, uid)
	return w.maxLag(), true
}

// statusPoints runs the error points of a status write by uid of object p
// (nil: none), whose result so far is err: it returns the write's result.
func (w *World) statusPoints(uid types.UID, p *apiPod, err error) error {
	fp := w.points
	if fp == nil {
		return err
	}
	if err == nil && w.faultsOn() {
		var fired bool
		switch {
		case fp.on.On(ErrorStatusRetry) && fp.lastStatus[uid] == writeFailed:
			w.fire(ErrorStatusRetry, "status", uid)
			fired = true
		case fp.on.On(ErrorStatusWhileDeleting) && p.deleting && fp.failedDelete[uid] < 2:
			fp.failedDelete[uid]++
			w.fire(ErrorStatusWhileDeleting, "status", uid)
			fired = true
		}
		if fired {
			w.faultSeen = true
			fp.lastStatus[uid] = writeFailedByPoint
			return errTransient
		}
	}
	if err == nil {
		delete(fp.lastStatus, uid)
	} else {
		fp.lastStatus[uid] = writeFailed
	}
	return err
}
