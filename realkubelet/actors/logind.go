package actors

import (
	"slices"

	"github.com/podsim/podsim/realkubelet/planted"
	"github.com/podsim/podsim/realkubelet/shutdown"
)

// LogindFaults are the logind faults a kubelet process's node shutdown
// manager meets (the driver's logind-restart and logind-delay moves; a
// restarted process keeps them).
type LogindFaults struct {
	// Restart: logind restarts between the manager's start and its
	// shutdown event, the first reconnect failing at FailAt
	// (shutdown.Config's Restart and FailAt).
	Restart bool
	FailAt  string
	// Delay is shutdown.Config.ShortDelay ("" none).
	Delay string
}

// On reports whether any fault is on.
func (f LogindFaults) On() bool { return f.Restart || f.Delay != "" }

// restartLogind restarts logind under the manager just started and
// reports whether the manager watches it again; the shutdown is then
// triggered on the new connection, with the pods active by then. If it
// does not, no shutdown is noted (LogindProblems says why, and the
// settle phase's L3 that it never ended).
func (a *Actors) restartLogind() bool {
	if err := a.Shutdown.RestartLogind(); err != nil {
		a.logindWrong = append(a.logindWrong, err.Error())
		return false
	}
	return true
}

// LockProblems are the node shutdown manager's releases of inhibit locks
// it did not hold (shutdown.LockProblem), with or without the logind faults;
// nil with no manager.
func (a *Actors) LockProblems() []shutdown.LockProblem {
	if a.Shutdown == nil {
		return nil
	}
	return a.Shutdown.LockProblems()
}

// LogindProblems are what went wrong under the logind faults: a manager
// that never watched (its start failed) or did not watch again in time
// after a restart, its connections' leaks, double closes and missing
// lock (shutdown.Manager.ConnectionProblems), and watches begun while
// logind's delay fell short of the groups (DelayProblems); nil without a
// fault.
func (a *Actors) LogindProblems() []string {
	if a.Shutdown == nil || !a.Logind.On() {
		return nil
	}
	out := append(slices.Clone(a.logindWrong), a.Shutdown.ConnectionProblems()...)
	return append(out, a.Shutdown.DelayProblems()...)
}

// shortDelay is shutdown.Config.ShortDelay: Logind.Delay, or "never"
// under the planted bug LogindDelayStuck.
func (a *Actors) shortDelay() string {
	if a.Logind.Delay != "" && a.plant == planted.LogindDelayStuck {
		return "never"
	}
	return a.Logind.Delay
}
