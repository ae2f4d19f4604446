package world

import (
	"time"

	"github.com/podsim/podsim/world/fakeruntime"
)

// FaultPointsOn arms the fake runtime's fault points (fakeruntime.FaultPoint)
// for this run (call before Run): the runtime's first call draws which of
// them are on. A housekeeping pass is due HousekeepingPeriod after the last.
func (w *World) FaultPointsOn() {
	w.Runtime.ArmFaultPoints(w.plan.Actions, func() time.Duration { return w.lastHousekeeping + HousekeepingPeriod })
}

// FaultPointsDrawn reports which fault points this run switched on (none
// before the runtime's first call or when they were not armed).
func (w *World) FaultPointsDrawn() []fakeruntime.FaultPoint { return w.Runtime.FaultPointsDrawn() }
