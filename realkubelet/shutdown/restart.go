package shutdown

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"time"
)

// Logind restarts (Config.Restart).
//
// On a node, logind (or the system bus under it) can restart while the
// kubelet runs. The manager's event loop then sees its signal channel
// close and ends; Start's loop waits dbusReconnectPeriod (1 s) and calls
// start again, every period until one succeeds. Each start makes a new
// connection; from v1.37 (kubernetes#137141, fixing #120613's leak of a
// connection's goroutines and file descriptor on every retry) it closes
// the connection it replaces, and a connection it fails to start with.
//
// With Config.Restart the manager runs upstream's own Start, reconnect
// loop and all, on connections this file hands out: the first, then, after
// RestartLogind took logind away, one that fails where Config.FailAt says
// (MonitorShutdown after it took its inhibit lock, CurrentInhibitDelay or
// InhibitShutdown: the failed start's clean-up runs; or none), then good
// ones. RestartLogind waits
// on the bubble's clock until the manager watches a new connection; the
// driver then triggers the shutdown on it. Stop cancels Start's context.
//
// Start ends with its context only from v1.37; before, its loop sleeps
// and reconnects forever, and a synctest bubble would never end. So the
// mode needs a kubelet built with the tag podsim_shutdownctx, which
// realrun sets for a tree whose Start waits on ctx.Done
// (cmd/realrun/scratch/shapes.go).

// reconnectBound is how long RestartLogind waits for the manager to watch
// again: upstream needs at most two reconnect periods here (the failed
// attempt, then the good one), 2 s; the bound is five times that.
const reconnectBound = 10 * time.Second

// maxConnections bounds the connections one manager is handed: a
// reconnect loop that spins gets errors past it, not unbounded memory.
const maxConnections = 64

// connections are the connections handed to one manager, in order, and
// the one it watches now.
type connections struct {
	mu    sync.Mutex
	all   []*Logind
	live  int // index in all of the connection the manager watches
	extra int // connections refused past maxConnections
	// rewatched closes when the manager watches a new connection after a
	// RestartLogind began (nil: no one waits).
	rewatched chan struct{}
	// leftOpen are the failed connections still open when the next one
	// was made.
	leftOpen []string
	// failAt is Config.FailAt, delay logind's inhibit delay (one logind
	// for every connection); the planted bugs of Config
	failAt                 string
	delay                  *delayConf
	state                  *logindState
	loseFirstClose, refuse bool
}

// RestartSupported says why Config.Restart cannot run on the kubelet this
// binary was built against, or nil if it can.
func RestartSupported() error {
	if !startEndsWithContext {
		return errors.New("logind restarts need a kubelet whose node shutdown manager ends its reconnect loop with its context " +
			"(v1.37 and later; the build tag podsim_shutdownctx, which realrun sets for such a tree)")
	}
	return nil
}

// startRestarting starts the manager impl (the managerImpl the Manager
// wraps) with its own Start on connections m hands out.
func (m *Manager) startRestarting(ctx context.Context, impl reflect.Value, cfg Config) error {
	if err := RestartSupported(); err != nil {
		return err
	}
	if !ownsDBusConn(impl) {
		return fmt.Errorf("%v has no newDBusConn: logind restarts need the manager's own connection func (v1.37 and later)", impl.Type())
	}
	m.conns = &connections{failAt: cfg.FailAt, loseFirstClose: cfg.LoseFirstClose, refuse: cfg.RefuseReconnect,
		delay: newDelayConf(cfg.ShortDelay, groupsTotal(cfg.Groups), cfg.DelayInForce), state: &logindState{}}
	m.conns.state.preparing.Store(cfg.Preparing)
	if err := handOverEach(impl, reflect.TypeFor[*Logind](), m.connect); err != nil {
		return err
	}
	ctx, m.cancel = context.WithCancel(ctx)
	err := m.real.Start(ctx)
	c := m.conns
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case err != nil: // the kubelet logs it and goes on without the manager
		m.startErr = "the node shutdown manager's Start failed: " + err.Error()
	case len(c.all) == 0:
		m.startErr = "the node shutdown manager's Start made no connection to logind"
	case !c.all[c.live].isMonitored():
		m.startErr = "the node shutdown manager's Start returned without watching logind (no MonitorShutdown)"
	}
	if m.startErr != "" {
		m.bus = newLogind() // no one watches it: a Trigger on it would block, so RestartLogind refuses first
		return nil
	}
	m.bus = c.all[c.live]
	return nil
}

// connect is the manager's newDBusConn: a new connection; the first after
// the first fails where Config.FailAt says.
func (m *Manager) connect() (any, error) {
	c := m.conns
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.all) == maxConnections {
		c.extra++
		return nil, fmt.Errorf("podsim: the fake logind refuses connections past %d", maxConnections)
	}
	if c.refuse && len(c.all) > 0 {
		return nil, errors.New("podsim: the fake logind refuses to reconnect (a planted bug)")
	}
	for i, prev := range c.all {
		if prev.fail != "" && prev.closeCount() == 0 && !slices.Contains(c.leftOpen, fmt.Sprint(i+1)) {
			c.leftOpen = append(c.leftOpen, fmt.Sprint(i+1))
		}
	}
	l := newLogind()
	l.conf, l.state = c.delay, c.state
	if len(c.all) > 0 {
		l.table = c.all[0].table // one process: its locks are file descriptors
	}
	if len(c.all) == 1 && c.failAt != "none" {
		l.fail = cmp.Or(c.failAt, "monitor")
	}
	l.loseClose = c.loseFirstClose && len(c.all) == 0
	if len(c.all) > 0 {
		l.onWatch = m.watched
	}
	c.all = append(c.all, l)
	return l, nil
}

// watched records that the manager watches l, a connection after the
// first, and wakes the RestartLogind waiting for it. (Lock order: the
// connections' lock, then a connection's; never the other way.)
func (m *Manager) watched(l *Logind) {
	c := m.conns
	c.mu.Lock()
	defer c.mu.Unlock()
	c.live = slices.Index(c.all, l)
	if c.rewatched != nil {
		close(c.rewatched)
		c.rewatched = nil
	}
}

// RestartLogind takes logind away (the watched connection's signal
// channel closes) and waits, at most reconnectBound on the bubble's
// clock, until the manager watches a new connection, which Trigger then
// sends on. The error says the manager did not watch again in time.
func (m *Manager) RestartLogind() error {
	if m.conns == nil {
		return errors.New("RestartLogind needs a manager started with Config.Restart")
	}
	if m.startErr != "" {
		return errors.New(m.startErr)
	}
	rewatched := make(chan struct{})
	m.conns.mu.Lock()
	m.conns.rewatched = rewatched
	m.conns.mu.Unlock()
	m.bus.close()
	t := time.NewTimer(reconnectBound)
	defer t.Stop()
	select {
	case <-rewatched:
	case <-t.C:
		return fmt.Errorf("the node shutdown manager did not watch logind again within %v of its restart (%d connections made)",
			reconnectBound, m.conns.count())
	}
	c := m.conns
	c.mu.Lock()
	defer c.mu.Unlock()
	m.bus = c.all[c.live]
	return nil
}

// Watching is the number (from 1) of the connection the manager watches.
func (m *Manager) Watching() int {
	if m.conns == nil {
		return 1
	}
	c := m.conns
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.live + 1
}

func (c *connections) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.all)
}

// ConnectionProblems says what is wrong with the connections of a
// manager started with Config.Restart (nil for any other): see
// connectionProblems.
func (m *Manager) ConnectionProblems() []string {
	if m.conns == nil {
		return nil
	}
	c := m.conns
	c.mu.Lock()
	all, live, extra, leftOpen := append([]*Logind(nil), c.all...), c.live, c.extra, slices.Clone(c.leftOpen)
	c.mu.Unlock()
	if len(all) == 0 {
		return nil // RestartLogind said why
	}
	var closes []int
	for _, l := range all {
		closes = append(closes, l.closeCount())
	}
	out := connectionProblems(closes, live, all[live].lockCount())
	for _, n := range leftOpen {
		out = append(out, "connection "+n+" failed to start and was still open when the manager made the next one (its failed start did not close it)")
	}
	if extra > 0 {
		out = append(out, fmt.Sprintf("the manager asked for %d connections past %d", extra, maxConnections))
	}
	return out
}

// connectionProblems judges a manager's connections, by their close
// counts and the index of the one it watches (which must hold an inhibit
// lock): every other one closed exactly once (one never closed is
// kubernetes#120613's leak; one closed twice, a close of a connection
// that was already gone), the watched one not closed, and holding an
// inhibit lock (without one logind would not wait for the pods' graceful
// termination).
func connectionProblems(closes []int, live, locks int) []string {
	var out []string
	for i, n := range closes {
		switch {
		case i == live && n > 0:
			out = append(out, fmt.Sprintf("connection %d, the one the node shutdown manager watches, was closed (%d times)", i+1, n))
		case i != live && n == 0:
			out = append(out, fmt.Sprintf("connection %d of %d was replaced or failed to start and never closed: a leaked D-Bus connection", i+1, len(closes)))
		case i != live && n > 1:
			out = append(out, fmt.Sprintf("connection %d of %d was closed %d times", i+1, len(closes), n))
		}
	}
	if locks == 0 {
		out = append(out, fmt.Sprintf("connection %d, the one the node shutdown manager watches, never took an inhibit lock: logind would not wait for the pods", live+1))
	}
	return out
}
