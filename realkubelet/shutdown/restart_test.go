package shutdown

import (
	"context"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/kubelet/nodeshutdown/systemd"
)

// TestConnectionProblems: the connection rules catch each way a manager
// can get its connections wrong, and pass the right way.
func TestConnectionProblems(t *testing.T) {
	for _, c := range []struct {
		name   string
		closes []int
		live   int
		locks  int
		want   []string // substrings, one per problem, in order
	}{
		{"replaced and failed, each closed once; live kept", []int{1, 1, 0}, 2, 1, nil},
		{"no restart", []int{0}, 0, 1, nil},
		{"the replaced one leaked (kubernetes#120613)", []int{0, 1, 0}, 2, 1, []string{"connection 1 of 3 was replaced or failed to start and never closed"}},
		{"the failed one leaked", []int{1, 0, 0}, 2, 1, []string{"connection 2 of 3 was replaced or failed to start and never closed"}},
		{"the failed one closed again on the next start", []int{1, 2, 0}, 2, 1, []string{"connection 2 of 3 was closed 2 times"}},
		{"the live one closed", []int{1, 1, 1}, 2, 1, []string{"connection 3, the one the node shutdown manager watches, was closed (1 times)"}},
		{"no lock on the live one", []int{1, 1, 0}, 2, 0, []string{"connection 3, the one the node shutdown manager watches, never took an inhibit lock"}},
		{"several at once", []int{0, 2, 1}, 2, 0, []string{"connection 1 of 3", "connection 2 of 3 was closed 2", "connection 3, the one", "never took an inhibit lock"}},
	} {
		got := connectionProblems(c.closes, c.live, c.locks)
		ok := len(got) == len(c.want)
		for i := 0; ok && i < len(got); i++ {
			ok = strings.Contains(got[i], c.want[i])
		}
		if !ok {
			t.Errorf("%s: %q, want problems containing %q", c.name, got, c.want)
		}
	}
}

// TestRestartRefusedOnLoopingStart: a kubelet built without
// podsim_shutdownctx (the pin, whose Start reconnects forever) refuses
// Config.Restart with the reason, rather than starting a loop no bubble
// could end.
func TestRestartRefusedOnLoopingStart(t *testing.T) {
	if startEndsWithContext {
		t.Skip("built with podsim_shutdownctx: restart_ctx_test.go runs the restart")
	}
	_, err := Start(context.Background(), Config{Groups: []Group{{Grace: 1}}, ActivePods: func() []*v1.Pod { return nil },
		Logger: klog.Background(), Restart: true})
	if err == nil || !strings.Contains(err.Error(), "v1.37 and later") {
		t.Fatalf("Start with Restart on a looping kubelet: %v, want a refusal naming v1.37", err)
	}
	if RestartSupported() == nil {
		t.Fatal("RestartSupported: nil without the tag")
	}
}

// TestRestartLogindNeedsRestartMode: RestartLogind on a manager started
// the plain way is an error, not a hang.
func TestRestartLogindNeedsRestartMode(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m, err := Start(t.Context(), Config{Groups: []Group{{Grace: 1}}, ActivePods: func() []*v1.Pod { return nil }, Logger: klog.Background()})
		if err != nil {
			t.Fatal(err)
		}
		if err := m.RestartLogind(); err == nil {
			t.Error("RestartLogind on a plain manager: no error")
		}
		if got := m.ConnectionProblems(); got != nil {
			t.Errorf("ConnectionProblems of a plain manager: %q", got)
		}
		m.Stop()
	})
}

// TestFailedStartClosedBeforeNext: a connection whose start failed must
// be closed by the time the manager makes the next one (the failed
// start's own clean-up), not only later as the connection the next start
// replaces; and a manager whose Start left nothing watched makes
// RestartLogind say so rather than wait.
func TestFailedStartClosedBeforeNext(t *testing.T) {
	for _, closeFailed := range []bool{true, false} {
		m := &Manager{conns: &connections{}}
		var conns []*Logind
		for range 2 {
			l, err := m.connect()
			if err != nil {
				t.Fatal(err)
			}
			conns = append(conns, l.(*Logind))
		}
		conns[0].Close() // replaced by the second start
		if closeFailed {
			conns[1].Close() // the second start failed at MonitorShutdown
		}
		if _, err := m.connect(); err != nil {
			t.Fatal(err)
		}
		if !closeFailed {
			conns[1].Close() // the third start closes the connection it replaces
		}
		m.conns.live = 2
		conns = append(conns, m.conns.all[2])
		conns[2].InhibitShutdown()
		got := m.ConnectionProblems()
		if closeFailed && got != nil {
			t.Errorf("clean-up in time: %q", got)
		}
		if !closeFailed && (len(got) != 1 || !strings.Contains(got[0], "connection 2 failed to start and was still open when the manager made the next one")) {
			t.Errorf("clean-up left to the next start: %q", got)
		}
	}
	m := &Manager{conns: &connections{}, startErr: "the node shutdown manager's Start made no connection to logind", bus: newLogind()}
	if err := m.RestartLogind(); err == nil || !strings.Contains(err.Error(), "made no connection") {
		t.Errorf("RestartLogind after a Start that made no connection: %v", err)
	}
	if got := m.ConnectionProblems(); got != nil {
		t.Errorf("ConnectionProblems with no connection: %q", got)
	}
}

// TestLockTable: a release of a lock the manager holds is clean; one of a
// lock never handed out, or released before, is recorded; only the one
// GJ names is stale: the lock released last, released again right after
// a newer lock was handed out (acquireInhibitLock's release of the
// m.inhibitLock an earlier release left set). Its look-alikes are not:
// an older lock released again, the last one released twice with no new
// lock between, lock 0.
func TestLockTable(t *testing.T) {
	type step struct {
		take    bool
		release systemd.InhibitLock
	}
	for _, c := range []struct {
		name  string
		steps []step
		want  []bool // Stale of each problem, in order
	}{
		{"take, release", []step{{take: true}, {release: 1}}, nil},
		{"reconnect: take 2, release 1", []step{{take: true}, {take: true}, {release: 1}}, nil},
		{"GJ: 2 released, take 3, release 2", []step{{take: true}, {take: true}, {release: 1}, {release: 2}, {take: true}, {release: 2}}, []bool{true}},
		{"lock 0", []step{{take: true}, {release: 0}}, []bool{false}},
		{"never handed out", []step{{take: true}, {release: 7}}, []bool{false}},
		{"an older lock again", []step{{take: true}, {take: true}, {release: 1}, {release: 2}, {take: true}, {release: 1}}, []bool{false}},
		{"the last one twice, no new lock", []step{{take: true}, {release: 1}, {release: 1}}, []bool{false}},
	} {
		tb := newLockTable()
		for _, s := range c.steps {
			if s.take {
				tb.take()
			} else {
				tb.release(s.release)
			}
		}
		var got []bool
		for _, p := range tb.problems() {
			got = append(got, p.Stale)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: stale %v, want %v (%v)", c.name, got, c.want, tb.problems())
		}
	}
}

// TestStaleReleaseOnCancel: on any kubelet (the pin's v1.36 too, whose
// start is run once), a cancellation (PrepareForShutdown(false)) after
// the shutdown was processed releases the lock processShutdownEvent
// released already: GJ, by the way no family takes.
func TestStaleReleaseOnCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := processedShutdown(t, Config{})
		m.bus.events <- false
		synctest.Wait()
		wantStaleRelease(t, m, "the cancellation")
		m.Stop()
		synctest.Wait()
	})
}

// TestHoldsLockAcrossCancel: the manager holds its start's lock until its
// shutdown is processed, none after, and a new one once it read the
// cancellation (Cancel), with admission open again (on the pin as on
// v1.37: the lock HoldsLock reports is what actors' trigger judges).
func TestHoldsLockAcrossCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := Config{Groups: []Group{{Grace: 1}}, ActivePods: func() []*v1.Pod { return nil }, Logger: klog.Background(),
			Kill: func(*v1.Pod, bool, *int64, func(*v1.PodStatus)) error { return nil }}
		m, err := Start(t.Context(), c)
		if err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if !m.HoldsLock() {
			t.Fatal("no lock held after the start")
		}
		m.Trigger()
		synctest.Wait()
		time.Sleep(2 * time.Second)
		synctest.Wait()
		if !m.Done() || m.HoldsLock() {
			t.Fatalf("after the processed shutdown: done %v, holds a lock %v; want done, none", m.Done(), m.HoldsLock())
		}
		if !m.Cancel() {
			t.Fatal("the loop did not take the cancellation")
		}
		synctest.Wait()
		if !m.HoldsLock() || m.ShuttingDown() {
			t.Fatalf("after the cancellation: holds a lock %v, shutting down %v; want a lock, admission open", m.HoldsLock(), m.ShuttingDown())
		}
		m.Stop()
		synctest.Wait()
	})
}

// processedShutdown starts a manager with c (one group of 1 s, no pods),
// triggers its shutdown and waits until it was processed, with no bad
// release so far; inside a bubble.
func processedShutdown(t *testing.T, c Config) *Manager {
	t.Helper()
	c.Groups, c.ActivePods, c.Logger = []Group{{Grace: 1}}, func() []*v1.Pod { return nil }, klog.Background()
	c.Kill = func(*v1.Pod, bool, *int64, func(*v1.PodStatus)) error { return nil }
	m, err := Start(t.Context(), c)
	if err != nil {
		t.Fatal(err)
	}
	m.Trigger()
	synctest.Wait()
	time.Sleep(2 * time.Second)
	synctest.Wait()
	if !m.Done() || len(m.LockProblems()) > 0 {
		t.Fatalf("the shutdown: done %v, lock problems %v", m.Done(), m.LockProblems())
	}
	return m
}

// wantStaleRelease: after what, the manager's one bad release is GJ's
// second release of lock 1.
func wantStaleRelease(t *testing.T, m *Manager, after string) {
	t.Helper()
	locks := m.LockProblems()
	if len(locks) != 1 || !locks[0].Stale || !strings.Contains(locks[0].Msg, "released inhibit lock 1 a second time") {
		t.Errorf("after %s: lock problems %v; want GJ's second release of lock 1", after, locks)
	}
}
