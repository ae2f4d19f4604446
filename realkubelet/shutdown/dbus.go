package shutdown

import (
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/kubelet/nodeshutdown/systemd"
)

// Logind is one connection to a fake logind on a fake system bus: its
// inhibit delay is long enough for any configuration (so the manager never
// rewrites logind's configuration), it hands out numbered inhibit locks,
// and its shutdown signal is a channel the driver sends on. Closing that
// channel is logind going away (a restart): the manager's event loop ends
// and, in kubelets whose Start reconnects, a new connection follows
// (restart.go).
type Logind struct {
	events chan bool
	// state is logind's own, shared by every connection to it.
	state *logindState
	// table is the process's inhibit locks (locks.go) and conf logind's
	// inhibit delay (delay.go), shared by the connections of one manager.
	table *lockTable
	conf  *delayConf
	mu    sync.Mutex
	// locks and releases count InhibitShutdown and ReleaseInhibitLock
	// calls on this connection; releasedAt are the releases' instants.
	locks, releases int
	releasedAt      []time.Time
	closed          bool // the signal channel closed: logind went away
	// closes counts the manager's Close calls on this connection.
	closes int
	// fail is the call of this connection that errs ("monitor": a
	// reconnect that fails after it took its inhibit lock, "delay",
	// "inhibit"), "" for none.
	fail string
	// loseClose: Close is not counted (Config.LoseFirstClose);
	// loseRelease: the first ReleaseInhibitLock leaves the lock held
	// (Config.LoseRelease).
	loseClose, loseRelease bool
	// monitored: MonitorShutdown succeeded on this connection.
	monitored bool
	// onWatch, if set, is called when MonitorShutdown succeeds: the
	// manager watches this connection (restart.go).
	onWatch func(*Logind)
}

func newLogind() *Logind {
	return &Logind{events: make(chan bool), state: &logindState{}, table: newLockTable(), conf: newDelayConf("", 0, 0)}
}

// logindState is logind's, not a connection's: whether it prepares a
// shutdown now (its PreparingForShutdown property), true from its
// "shutting down" until it withdraws it.
type logindState struct{ preparing atomic.Bool }

// PreparingForShutdown is logind's property of that name. No kubelet
// through v1.37 reads it; one that learns at its start of a shutdown in
// progress (kubernetes#122674) may, through a method of this name and
// signature on its dbusInhibiter interface, and so runs here unchanged.
func (l *Logind) PreparingForShutdown() (bool, error) { return l.state.preparing.Load(), nil }

// CurrentInhibitDelay is the delay in force (delay.go: a day, unless
// Config.ShortDelay).
func (l *Logind) CurrentInhibitDelay() (time.Duration, error) {
	if l.fail == "delay" {
		return 0, errors.New("podsim: the fake logind failed to read its inhibit delay (a failed reconnect)")
	}
	return l.conf.current(), nil
}

// InhibitShutdown hands out the next lock.
func (l *Logind) InhibitShutdown() (systemd.InhibitLock, error) {
	if l.fail == "inhibit" {
		return 0, errors.New("podsim: the fake logind refused an inhibit lock (a failed reconnect)")
	}
	l.mu.Lock()
	l.locks++
	l.mu.Unlock()
	return l.table.take(), nil
}

// ReleaseInhibitLock closes the lock (the table records a lock the
// manager did not hold) and counts the call: the manager releases its
// lock when processShutdownEvent returns.
func (l *Logind) ReleaseInhibitLock(lock systemd.InhibitLock) error {
	l.mu.Lock()
	l.releases++
	l.releasedAt = append(l.releasedAt, time.Now())
	lose := l.loseRelease
	l.loseRelease = false
	l.mu.Unlock()
	if !lose {
		l.table.release(lock)
	}
	return nil
}

// ReloadLogindConf makes logind apply a written override (delay.go).
func (l *Logind) ReloadLogindConf() error {
	l.conf.reload()
	return nil
}

// OverrideInhibitDelay writes the override logind applies once it
// reloads (delay.go).
func (l *Logind) OverrideInhibitDelay(d time.Duration) error {
	l.conf.write(d)
	return nil
}

// Close counts the call: kubelets from v1.37 close a connection they
// replace or fail to start with (restart.go checks that each is closed
// once), and a fake bus holds nothing else.
func (l *Logind) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.loseClose {
		l.closes++
	}
	return nil
}

// MonitorShutdown is logind's PrepareForShutdown signal, or an error on a
// connection made to fail.
func (l *Logind) MonitorShutdown(klog.Logger) (<-chan bool, error) {
	l.mu.Lock()
	fail, onWatch := l.fail == "monitor", l.onWatch
	l.mu.Unlock()
	if fail {
		return nil, errors.New("podsim: the fake logind refused to monitor (a failed reconnect)")
	}
	l.conf.watching()
	l.mu.Lock()
	l.monitored = true
	l.mu.Unlock()
	if onWatch != nil {
		onWatch(l)
	}
	return l.events, nil
}

// releasedCount is the number of ReleaseInhibitLock calls so far.
func (l *Logind) releasedCount() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.releases
}

// releaseAt is when the nth ReleaseInhibitLock call (from 0) came; ok
// false if it has not.
func (l *Logind) releaseAt(n int) (at time.Time, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n >= len(l.releasedAt) {
		return time.Time{}, false
	}
	return l.releasedAt[n], true
}

// isMonitored reports whether MonitorShutdown succeeded on l.
func (l *Logind) isMonitored() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.monitored
}

// lockCount is the number of inhibit locks handed out so far.
func (l *Logind) lockCount() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.locks
}

// closeCount is the number of the manager's Close calls so far.
func (l *Logind) closeCount() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.closes
}

func (l *Logind) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.closed {
		l.closed = true
		close(l.events)
	}
}
