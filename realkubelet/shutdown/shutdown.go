// Package shutdown runs the real node shutdown manager of the pinned
// kubelet (k8s.io/kubernetes/pkg/kubelet/nodeshutdown, Linux) inside the
// driver's synctest bubble.
//
// # How the shutdown event reaches the real code
//
// Upstream's manager learns of a shutdown from logind over D-Bus: its
// unexported start method takes a connection from the package variable
// systemDbus, takes an inhibit lock, and runs the event loop that, on
// "shutting down", closes admission (ShutdownStatus, Admit), starts a node
// status sync and calls processShutdownEvent, which snapshots the active
// pods and kills them group by group (killPods: ascending priority, the
// pods of a group in parallel through the KillPodFunc with grace
// min(group grace, spec grace), the group given its grace period on the
// manager's clock before the next one starts), then releases the lock.
//
// Both are unexported, so they are reached like newPodWorkers: start is
// pulled by //go:linkname as a method expression, and the manager's next
// bus connection is made to return this package's fake logind (dbus.go,
// handover.go) — through systemDbus, pulled by //go:linkname, for one
// start at a time (startMu), or, in kubelets that copy it into the
// manager (newDBusConn, from v1.37), through that copy. The fake's
// MonitorShutdown channel is the trigger: the driver sends "true" on it,
// and everything from there on is
// upstream's: the event loop, processShutdownEvent, killPods, the
// groups' timers, the kills through the real killPodNow (killgate) into the
// real pod workers. The fake's first ReleaseInhibitLock after the trigger
// is the end of processShutdownEvent (its deferred release): Done.
// TestLinknameSignature (shutdown_test.go) parses the kubelet's
// nodeshutdown_manager_linux.go and fails unless systemDbus' type and
// start's signature are the ones this package assumes; the fake is handed
// over as a value of the kubelet's own dbusInhibiter type, made by reflect
// (handover.go), which refuses a fake that lacks one of its methods. So
// the kubelets before and after v1.37 (which added Close to the
// interface) are served by one build.
//
// What is not upstream's: Start's reconnect loop (in v1.36 a goroutine
// that never ends; start is called once instead, unless logind restarts:
// Config.Restart, restart.go), logind's inhibit delay (a day, unless
// Config.ShortDelay: delay.go), the volume manager
// (WaitForAllPodsUnmount returns at once: no volumes), the node status
// sync (a no-op), and the state file, whose directory does not exist, so
// its stores fail and are logged (they only feed metrics). The active pods
// are the caller's (the kubelet's filterOutInactivePods is a *Kubelet
// method).
package shutdown

import (
	"context"
	"fmt"
	"reflect"
	"time"
	"unsafe"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"
	kubeletconfig "k8s.io/kubernetes/pkg/kubelet/apis/config"
	"k8s.io/kubernetes/pkg/kubelet/eviction"
	"k8s.io/kubernetes/pkg/kubelet/lifecycle"
	"k8s.io/kubernetes/pkg/kubelet/nodeshutdown"
	"k8s.io/kubernetes/pkg/kubelet/volumemanager"
	"k8s.io/utils/clock"
)

// managerStart is (*nodeshutdown.managerImpl).start, pulled by name; its
// receiver is the manager's pointer (the data word of the Manager
// interface NewManager returns).
//
//go:linkname managerStart k8s.io/kubernetes/pkg/kubelet/nodeshutdown.(*managerImpl).start
func managerStart(m unsafe.Pointer, ctx context.Context) (chan struct{}, error)

// Group is one ShutdownGracePeriodByPodPriority entry.
type Group struct {
	Priority int32
	Grace    int64 // seconds
}

// Config is what the driver gives the manager.
type Config struct {
	Groups []Group
	// ActivePods is the kubelet's GetActivePods at the instant the manager
	// asks (processShutdownEvent, right after the event).
	ActivePods func() []*v1.Pod
	// Kill is the manager's KillPodFunc (killgate's, over the real
	// killPodNow).
	Kill   eviction.KillPodFunc
	Logger klog.Logger
	// Restart starts the manager with its own Start, reconnect loop and
	// all, so that RestartLogind can take logind away and bring it back
	// (restart.go). It needs a kubelet whose Start ends with its context
	// (v1.37 and later: RestartSupported).
	Restart bool
	// ShortDelay makes logind's inhibit delay start at 5 s, so that groups
	// asking for more make the manager override it: "reload" (the override
	// applies when logind reloads) or "slow" (a second later); "" for a
	// delay of a day (delay.go).
	ShortDelay string
	// FailAt is where the first reconnect after the restart fails: one of
	// "monitor" (the default, ""), "delay", "inhibit", or "none"
	// (script.LogindFails).
	FailAt string
	// LoseFirstClose and RefuseReconnect are the driver's planted bugs
	// (its tests only): the fake logind loses the manager's Close of the
	// first connection, as if the manager leaked it (kubernetes#120613);
	// or it refuses every connection after the first, so the manager
	// never watches again.
	LoseFirstClose, RefuseReconnect bool
	// Preparing: logind prepares a shutdown already as the manager starts
	// (a kubelet restarted during one; its PreparingForShutdown property).
	Preparing bool
	// DelayInForce is logind's inhibit delay as an earlier process's
	// manager left it (0: ShortDelay's start): a kubelet restart keeps
	// logind's configuration, an applied override included.
	DelayInForce time.Duration
	// LoseRelease is a planted bug (the driver's tests only; without
	// Restart): the manager's first release of its inhibit lock leaves
	// the lock held, as if the manager kept it.
	LoseRelease bool
}

// Manager is one real node shutdown manager, started, with its fake
// logind.
type Manager struct {
	real  nodeshutdown.Manager
	admit func(*lifecycle.PodAdmitAttributes) lifecycle.PodAdmitResult
	bus   *Logind // the connection Trigger sends on
	// atTrigger is bus's release count when Trigger sent "shutting down":
	// the release after it ends processShutdownEvent.
	atTrigger int
	// startErr says why the manager watches no connection after its start
	// ("" if it does): the plain start failed under ShortDelay or returned
	// without watching; with Restart, Start failed, made no connection or
	// watched none (restart.go). Trigger then sends nothing.
	startErr string
	// conns are the connections handed out and cancel ends Start's
	// context: Config.Restart's (restart.go).
	conns  *connections
	cancel context.CancelFunc
}

// newReal is the real manager of c, not started.
func newReal(c Config) nodeshutdown.Manager {
	var groups []kubeletconfig.ShutdownGracePeriodByPodPriority
	for _, g := range c.Groups {
		groups = append(groups, kubeletconfig.ShutdownGracePeriodByPodPriority{Priority: g.Priority, ShutdownGracePeriodSeconds: g.Grace})
	}
	return nodeshutdown.NewManager(&nodeshutdown.Config{
		Logger:                           c.Logger,
		VolumeManager:                    noVolumes{},
		Recorder:                         &record.FakeRecorder{},
		NodeRef:                          &v1.ObjectReference{Kind: "Node", Name: "podsim"},
		GetPodsFunc:                      c.ActivePods,
		KillPodFunc:                      c.Kill,
		SyncNodeStatusFunc:               func(context.Context) {},
		ShutdownGracePeriodByPodPriority: groups,
		StateDirectory:                   "/nonexistent/podsim-node-shutdown",
		Clock:                            clock.RealClock{}, // the bubble's time
	})
}

// Start builds the real manager (nodeshutdown.NewManager) with the
// bubble's clock and starts its event loop on a fake logind. It fails if
// the pinned kubelet returned a stub (the feature gate off, no groups) or
// a manager of another shape.
func Start(ctx context.Context, c Config) (*Manager, error) {
	real := newReal(c)
	ptr, err := managerPointer(real)
	if err != nil {
		return nil, err
	}
	admit, err := admitOf(ctx, real)
	if err != nil {
		return nil, err
	}
	m := &Manager{real: real, admit: admit}
	if c.Restart {
		err = m.startRestarting(ctx, reflect.ValueOf(real).Elem(), c)
	} else {
		m.bus = newLogind()
		m.bus.conf = newDelayConf(c.ShortDelay, groupsTotal(c.Groups), c.DelayInForce)
		m.bus.state.preparing.Store(c.Preparing)
		m.bus.loseRelease = c.LoseRelease
		startMu.Lock()
		if err = handOver(reflect.ValueOf(real).Elem(), m.bus); err == nil {
			if _, err = managerStart(ptr, ctx); err != nil && c.ShortDelay != "" {
				m.startErr, err = "the node shutdown manager's start failed: "+err.Error(), nil
			} else if err == nil && !m.bus.isMonitored() {
				m.startErr = "the node shutdown manager's start returned without watching logind (no MonitorShutdown)"
			}
		}
		startMu.Unlock()
	}
	if err != nil {
		return nil, fmt.Errorf("starting the node shutdown manager: %w", err)
	}
	return m, nil
}

// managerPointer is the *managerImpl behind m, or an error if m is not one.
func managerPointer(m nodeshutdown.Manager) (unsafe.Pointer, error) {
	v := reflect.ValueOf(m)
	if v.Kind() != reflect.Pointer || v.Type().String() != "*nodeshutdown.managerImpl" {
		return nil, fmt.Errorf("nodeshutdown.NewManager returned %T, not the Linux manager", m)
	}
	return v.UnsafePointer(), nil
}

// groupsTotal is the manager's periodRequested: the groups' graces summed.
func groupsTotal(gs []Group) time.Duration {
	var sum int64
	for _, g := range gs {
		sum += g.Grace
	}
	return time.Duration(sum) * time.Second
}

// StartProblem is startErr: why the manager watches no connection after
// its start, "" if it does.
func (m *Manager) StartProblem() string { return m.startErr }

// DelayInForce is logind's inhibit delay in force now, as this manager's
// logind sees it (Config.DelayInForce for the next process's).
func (m *Manager) DelayInForce() time.Duration { return m.bus.conf.current() }

// DelayProblems are the watches the manager began while logind's inhibit
// delay did not cover its groups (delay.go).
func (m *Manager) DelayProblems() []string { return m.bus.conf.judged() }

// Trigger delivers logind's "shutting down" to the event loop; it returns
// once the loop took it (the rest runs until the next synctest.Wait).
func (m *Manager) Trigger() {
	if m.StartProblem() != "" {
		return // no loop reads the channel
	}
	m.atTrigger = m.bus.releasedCount()
	m.bus.state.preparing.Store(true)
	m.bus.events <- true
}

// Withdraw is logind withdrawing its shutdown: its PreparingForShutdown
// turns false at once, whenever the manager's loop reads the signal
// (Cancel).
func (m *Manager) Withdraw() { m.bus.state.preparing.Store(false) }

// Cancel delivers logind's "shutdown cancelled" (PrepareForShutdown(false))
// to the event loop if it waits for a signal, and reports whether it did:
// it does not while processShutdownEvent runs (call it once Done). The
// rest (admission reopens, a new inhibit lock) runs until the next
// synctest.Wait.
func (m *Manager) Cancel() bool {
	if m.StartProblem() != "" {
		return false // no loop reads the channel
	}
	select {
	case m.bus.events <- false:
		return true
	default:
		return false
	}
}

// HoldsLock reports whether the manager holds an inhibit lock now: when
// logind announces a shutdown, it waits only for the holders of one.
func (m *Manager) HoldsLock() bool { return m.bus.table.holds() }

// LockProblems are the manager's releases of inhibit locks it did not
// hold (locks.go), in order.
func (m *Manager) LockProblems() []LockProblem { return m.bus.table.problems() }

// Done reports whether processShutdownEvent returned (it released the
// inhibit lock it took at start, on the connection Trigger sent on).
func (m *Manager) Done() bool { return m.bus.releasedCount() > m.atTrigger }

// DoneAt is when processShutdownEvent returned (its release of the lock),
// if it did.
func (m *Manager) DoneAt() (time.Time, bool) { return m.bus.releaseAt(m.atTrigger) }

// Admit is the real manager's admission handler: it rejects every pod
// once the shutdown began.
func (m *Manager) Admit(pod *v1.Pod) lifecycle.PodAdmitResult {
	return m.admit(&lifecycle.PodAdmitAttributes{Pod: pod})
}

// admitOf is real's Admit, which kubelets from v1.37 call with a context
// (for its logger): Start's is passed.
func admitOf(ctx context.Context, real nodeshutdown.Manager) (func(*lifecycle.PodAdmitAttributes) lifecycle.PodAdmitResult, error) {
	switch a := any(real).(type) {
	case interface {
		Admit(context.Context, *lifecycle.PodAdmitAttributes) lifecycle.PodAdmitResult
	}:
		return func(attrs *lifecycle.PodAdmitAttributes) lifecycle.PodAdmitResult { return a.Admit(ctx, attrs) }, nil
	case interface {
		Admit(*lifecycle.PodAdmitAttributes) lifecycle.PodAdmitResult
	}:
		return a.Admit, nil
	}
	return nil, fmt.Errorf("the node shutdown manager %T has no Admit of a known shape", real)
}

// ShuttingDown is the real ShutdownStatus.
func (m *Manager) ShuttingDown() bool { return m.real.ShutdownStatus() != nil }

// Stop ends the event loop (logind's signal channel closes); the loop's
// goroutine exits. A manager started with Config.Restart has its context
// cancelled instead, which ends Start's reconnect loop too.
func (m *Manager) Stop() {
	if m.cancel != nil {
		m.cancel()
		return
	}
	m.bus.close()
}

// noVolumes is the volume manager: the pods have no volumes, so every
// unmount wait ends at once. Any other method panics (the nil embedded
// interface), which would tell us the manager grew a dependency.
type noVolumes struct{ volumemanager.VolumeManager }

func (noVolumes) WaitForAllPodsUnmount(context.Context, []*v1.Pod) error { return nil }
