package shutdown

import (
	"sync"
	"time"

	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/kubelet/nodeshutdown/systemd"
)

// Logind is a fake logind on a fake system bus: its inhibit delay is long
// enough for any configuration (so the manager never rewrites logind's
// configuration), it hands out numbered inhibit locks, and its shutdown
// signal is a channel the driver sends on.
type Logind struct {
	events chan bool
	mu     sync.Mutex
	locks  systemd.InhibitLock // the last lock handed out
	// releases counts ReleaseInhibitLock calls.
	releases int
	closed   bool
}

func newLogind() *Logind { return &Logind{events: make(chan bool)} }

// CurrentInhibitDelay is a day: more than any group total the plans use.
func (*Logind) CurrentInhibitDelay() (time.Duration, error) { return 24 * time.Hour, nil }

// InhibitShutdown hands out the next lock.
func (l *Logind) InhibitShutdown() (systemd.InhibitLock, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.locks++
	return l.locks, nil
}

// ReleaseInhibitLock counts the release: the manager releases its lock
// when processShutdownEvent returns.
func (l *Logind) ReleaseInhibitLock(systemd.InhibitLock) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.releases++
	return nil
}

// ReloadLogindConf is never needed (the delay is long enough).
func (*Logind) ReloadLogindConf() error { return nil }

// OverrideInhibitDelay is never needed (the delay is long enough).
func (*Logind) OverrideInhibitDelay(time.Duration) error { return nil }

// Close is a no-op: kubelets from v1.37 close a connection they replace
// or fail to start with, and a fake bus holds nothing.
func (*Logind) Close() error { return nil }

// MonitorShutdown is logind's PrepareForShutdown signal.
func (l *Logind) MonitorShutdown(klog.Logger) (<-chan bool, error) { return l.events, nil }

func (l *Logind) released() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.releases > 0
}

func (l *Logind) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.closed {
		l.closed = true
		close(l.events)
	}
}
