//go:build podsim_shutdownctx

package shutdown

import (
	"testing"
	"testing/synctest"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
)

// TestRestartLogind (a kubelet from v1.37, built with podsim_shutdownctx):
// under the manager's own Start, logind's restart is followed by a
// reconnect that fails where FailAt says, one reconnect period later, and a
// good one a period after that (2 s on the bubble's clock; 1 s when none
// fails); the shutdown triggered on the new connection is processed there;
// every connection replaced or failed is closed once, the watched one not,
// and it holds a lock; only the failure after the lock was taken leaves
// the stale release GJ names; Stop ends every goroutine (or synctest.Test
// fails).
func TestRestartLogind(t *testing.T) {
	for _, c := range []struct {
		fail  string
		after time.Duration
		conns int
		stale bool
	}{{"monitor", 2 * time.Second, 3, true}, {"delay", 2 * time.Second, 3, false}, {"inhibit", 2 * time.Second, 3, false}, {"none", time.Second, 2, false}} {
		t.Run(c.fail, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var killed []string
				m, err := Start(t.Context(), Config{Groups: []Group{{Grace: 3}},
					ActivePods: func() []*v1.Pod { return []*v1.Pod{pod("a", 0, 30)} },
					Kill: func(p *v1.Pod, _ bool, _ *int64, _ func(*v1.PodStatus)) error {
						killed = append(killed, string(p.UID))
						return nil
					},
					Logger: klog.Background(), Restart: true, FailAt: c.fail})
				if err != nil {
					t.Fatal(err)
				}
				first, t0 := m.bus, time.Now()
				if err := m.RestartLogind(); err != nil {
					t.Fatal(err)
				}
				if got := time.Since(t0); got != c.after {
					t.Errorf("watching again took %v, want %v", got, c.after)
				}
				if n := m.conns.count(); n != c.conns || m.bus == first || m.Watching() != c.conns {
					t.Fatalf("%d connections, watching number %d; want %d, the last", n, m.Watching(), c.conns)
				}
				if got := m.ConnectionProblems(); got != nil {
					t.Errorf("connection problems after the restart: %q", got)
				}
				m.Trigger()
				synctest.Wait()
				time.Sleep(5 * time.Second)
				synctest.Wait()
				if !m.Done() || len(killed) != 1 {
					t.Fatalf("after the restart: done %v, killed %v; want done, [a]", m.Done(), killed)
				}
				m.Stop()
				synctest.Wait()
				if got := m.ConnectionProblems(); got != nil {
					t.Errorf("connection problems at the end: %q", got)
				}
				locks := m.LockProblems()
				if stale := len(locks) == 1 && locks[0].Stale; stale != c.stale || (!c.stale && len(locks) > 0) {
					t.Errorf("lock problems %v; want GJ's stale release: %v", locks, c.stale)
				}
			})
		})
	}
}

// TestStaleReleaseAfterShutdown: GJ's other two ways in, which no family
// drives (a processed shutdown is where the plans stop): after
// processShutdownEvent released the lock, a cancellation
// (PrepareForShutdown(false)) makes acquireInhibitLock take a new lock
// and release the old one again; so does a logind restart, at its
// reconnect. Both are the stale release the table calls GJ.
func TestStaleReleaseAfterShutdown(t *testing.T) {
	for _, then := range []string{"cancel", "restart"} {
		t.Run(then, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				m := processedShutdown(t, Config{Restart: true, FailAt: "none"})
				if then == "cancel" {
					m.bus.events <- false
					synctest.Wait()
				} else if err := m.RestartLogind(); err != nil {
					t.Fatal(err)
				}
				wantStaleRelease(t, m, "the "+then)
				m.Stop()
				synctest.Wait()
			})
		})
	}
}
