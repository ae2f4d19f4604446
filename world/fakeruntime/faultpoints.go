package fakeruntime

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/workers"
)

// Fault points (BUGGIFY): faults tied to a situation rather than drawn at a
// flat rate. Each is switched on for the whole run, or not, by one draw of
// the fault stream (its fault plan, plan.DrawFaultPoints: 1 in
// plan.FaultPointOneIn), made at the runtime's first call, so
// the plan is recorded with the run's fault choices, replays from them and
// shrinks like any of them (choice 0 is "off"). A point is drawn only when
// the plan's own Faults allow its kind of fault — slow calls for the two
// slow points, ignored cancellation for the third, errors for the fourth —
// and it only moves the runtime within what those faults allow (a call
// never takes longer than Faults.MaxDelay more than it could anyway, an
// error is one the plan could draw): correct pod workers stay correct under
// any of them. A point that fires fires an event named
// "faultpoint/<point>/<callback>/<uid>", so the trace shows it.
type FaultPoint int

const (
	// SlowSyncUnderKill: a SyncPod that begins while something that kills
	// its pod is planned within Faults.MaxDelay (a kill, delete, removal,
	// eviction, shutdown, or a housekeeping pass that may find it orphaned)
	// is slow until just after that action's time, honouring cancellation:
	// a slow call exactly while a kill lands.
	SlowSyncUnderKill FaultPoint = iota
	// SlowTerminatingUnderKill: the same for a SyncTerminatingPod and a
	// planned kill: a second kill (a shorter grace) lands while the pod
	// terminates.
	SlowTerminatingUnderKill
	// SlowTerminatedUnderKill: the same for a SyncTerminatedPod and a
	// planned kill, runtime-only kill, housekeeping pass or restart: they
	// land between the end of termination and the pod's finish.
	SlowTerminatedUnderKill
	// IgnoreCancelUnderUpdate: a SyncPod that begins while an update or kill
	// of its pod is planned within Faults.MaxDelay sleeps until just after
	// it, ignoring cancellation: a cancellation ignored while an update is
	// pending. Needs Faults.IgnoreCancel.
	IgnoreCancelUnderUpdate
	// ErrorAfterShortGrace: a SyncTerminatingPod whose grace is shorter than
	// the previous SyncTerminatingPod's of the same pod (the retry after a
	// kill shortened the grace) fails with ErrTransient. Needs
	// Faults.ErrorRate.
	ErrorAfterShortGrace
	// SlowAfterError: the call after a failed call of the same pod is slow
	// for Faults.MaxDelay (honouring cancellation): the retry hangs while
	// the kubelet moves on.
	SlowAfterError
	nFaultPoints
)

var faultPointNames = [...]string{"slow-sync-under-kill", "slow-terminating-under-kill", "slow-terminated-under-kill",
	"ignore-cancel-under-update", "error-after-short-grace", "slow-after-error"}

func (p FaultPoint) String() string { return faultPointNames[p] }

// faultPoints is a run's fault plan and the state its situations need. It is
// shared by the runtime of every epoch (Handover copies the pointer).
type faultPoints struct {
	drawn     bool
	on        plan.FaultPointsOn[FaultPoint]
	actions   map[types.UID][]plan.Action // the plan's actions per pod, in time order
	lastGrace map[types.UID]int64         // the grace of the pod's last SyncTerminatingPod
	failed    map[types.UID]bool          // the pod's last call failed
	// nextHousekeeping is when the next housekeeping pass is due (the last
	// one's time + the world's housekeeping period): a pass may kill an
	// orphan or a runtime-only pod, so it counts as a planned kill.
	nextHousekeeping func() time.Duration
}

// housekeepingMargin: a slow point that waits for a housekeeping pass
// sleeps this much past its due time (the pass may wait for the sync loop).
const housekeepingMargin = 100 * time.Millisecond

// ArmFaultPoints arms the fault points for this run (call before the
// runtime's first call, which draws which of them are on): actions are the
// plan's; nextHousekeeping tells when the next housekeeping pass is due.
func (r *Runtime) ArmFaultPoints(actions []plan.Action, nextHousekeeping func() time.Duration) {
	fp := &faultPoints{actions: map[types.UID][]plan.Action{}, lastGrace: map[types.UID]int64{},
		failed: map[types.UID]bool{}}
	for _, a := range actions {
		fp.actions[a.UID] = append(fp.actions[a.UID], a)
	}
	fp.nextHousekeeping = nextHousekeeping
	r.points = fp
}

// FaultPointsDrawn reports which fault points this run switched on (none
// before the runtime's first call or when they were not armed).
func (r *Runtime) FaultPointsDrawn() []FaultPoint {
	if r.points == nil {
		return nil
	}
	return r.points.on.List()
}

// applies reports whether the plan's faults allow point p.
func applies(p FaultPoint, f plan.Faults) bool {
	slow := f.SlowRate > 0 && f.MaxDelay > 0
	switch p {
	case SlowSyncUnderKill, SlowTerminatingUnderKill, SlowTerminatedUnderKill, SlowAfterError:
		return slow
	case IgnoreCancelUnderUpdate:
		return slow && f.IgnoreCancel > 0
	case ErrorAfterShortGrace:
		return f.ErrorRate > 0
	}
	return false
}

// drawPoints draws the fault plan once, from the fault stream: one draw per
// applicable point (plan.DrawFaultPoints).
func (r *Runtime) drawPoints() {
	fp := r.points
	if fp.drawn {
		return
	}
	fp.drawn = true
	applicable := plan.ApplicableFaultPoints(nFaultPoints, func(p FaultPoint) bool { return applies(p, r.Faults) })
	fp.on = plan.DrawFaultPoints(r.Draw, applicable)
}

// fire shows point p firing in the trace.
func (r *Runtime) fire(p FaultPoint, fn string, uid types.UID) {
	r.S.NewEvent(fmt.Sprintf("faultpoint/%s/%s/%s", p, fn, uid)).Fire()
}

// killsPod: an action that kills the pod (or every pod: Shutdown).
func killsPod(k plan.ActionKind) bool {
	switch k {
	case plan.Delete, plan.Remove, plan.Kill, plan.KillNow, plan.RuntimeKill, plan.Evict, plan.Shutdown:
		return true
	}
	return false
}

// mayKillPod: killsPod, or a housekeeping pass or a Vanish that may find the
// pod orphaned.
func mayKillPod(k plan.ActionKind) bool {
	return killsPod(k) || k == plan.SyncKnown || k == plan.Vanish
}

// landsAfterTermination: what may drive a terminated pod again.
func landsAfterTermination(k plan.ActionKind) bool { return mayKillPod(k) || k == plan.Restart }

// updatesPod: an action that reaches the pod's worker as an UpdatePod.
func updatesPod(k plan.ActionKind) bool {
	return killsPod(k) || k == plan.Update || k == plan.Sync
}

// slowPoints: the slow-under-kill point of each callback and the actions
// it waits for.
var slowPoints = map[string]struct {
	point FaultPoint
	match func(plan.ActionKind) bool
}{
	"SyncPod":            {SlowSyncUnderKill, mayKillPod},
	"SyncTerminatingPod": {SlowTerminatingUnderKill, killsPod},
	"SyncTerminatedPod":  {SlowTerminatedUnderKill, landsAfterTermination},
}

// until is how long from now until just after the first action of uid (or
// of every pod, for a Shutdown) that match says lands — or the next
// housekeeping pass, when match takes housekeeping (SyncKnown) — if that is
// within MaxDelay.
func (r *Runtime) until(uid types.UID, match func(plan.ActionKind) bool) (time.Duration, bool) {
	now := r.S.Elapsed()
	best, margin := time.Duration(-1), time.Millisecond
	if hk := r.points.nextHousekeeping(); match(plan.SyncKnown) && hk > now && hk-now+housekeepingMargin < r.Faults.MaxDelay {
		best, margin = hk, housekeepingMargin
	}
	for _, list := range [][]plan.Action{r.points.actions[uid], r.points.actions[""]} {
		for _, a := range list {
			if a.At > now && a.At-now < r.Faults.MaxDelay && match(a.Kind) && (best < 0 || a.At < best) {
				best, margin = a.At, time.Millisecond
			}
		}
	}
	if best < 0 {
		return 0, false
	}
	return best - now + margin, true
}

// beforePoints runs the points that act as a call begins; done means the
// call is over (err is its result). It returns slept: the call already
// took its time.
func (r *Runtime) beforePoints(fn string, uid types.UID, c CallInfo) (slept, done bool, err error) {
	fp := r.points
	r.drawPoints()
	if fp.on.On(IgnoreCancelUnderUpdate) && fn == "SyncPod" {
		if d, ok := r.until(uid, updatesPod); ok {
			r.fire(IgnoreCancelUnderUpdate, fn, uid)
			r.S.Sleep(d)
			return true, false, nil
		}
	}
	p, d, ok := SlowAfterError, time.Duration(0), false
	if sp, known := slowPoints[fn]; known && fp.on.On(sp.point) {
		p = sp.point
		d, ok = r.until(uid, sp.match)
	}
	if !ok && fp.on.On(SlowAfterError) && fp.failed[uid] {
		p, d, ok = SlowAfterError, r.Faults.MaxDelay, true
	}
	if !ok {
		return false, false, nil
	}
	r.fire(p, fn, uid)
	if c.Cancel.WaitFor(d) {
		return true, true, workers.ErrCanceled
	}
	return true, false, nil
}

// afterPoints runs the points that decide a call's result: err, the call's
// result so far, or ErrTransient.
func (r *Runtime) afterPoints(fn string, uid types.UID, c CallInfo, err error) error {
	fp := r.points
	if fn != "SyncTerminatingPod" {
		return err
	}
	last, seen := fp.lastGrace[uid]
	fp.lastGrace[uid] = c.Grace
	if err == nil && fp.on.On(ErrorAfterShortGrace) && seen && c.Grace < last {
		r.fire(ErrorAfterShortGrace, fn, uid)
		return ErrTransient
	}
	return err
}

// noteResult remembers whether uid's call failed (SlowAfterError).
func (r *Runtime) noteResult(uid types.UID, err error) {
	if r.points != nil {
		r.points.failed[uid] = err != nil
	}
}

// FaultPoints lists every fault point.
func FaultPoints() []FaultPoint { return plan.AllFaultPoints(nFaultPoints) }
