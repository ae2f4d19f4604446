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
// reconnect that fails, one reconnect period later, and a good one a
// period after that (2 s on the bubble's clock); the shutdown triggered on
// the new connection is processed there; the replaced and the failed
// connection are closed once each, the watched one not, and it holds a
// lock; Stop ends every goroutine (or synctest.Test fails).
func TestRestartLogind(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var killed []string
		m, err := Start(t.Context(), Config{Groups: []Group{{Grace: 3}},
			ActivePods: func() []*v1.Pod { return []*v1.Pod{pod("a", 0, 30)} },
			Kill: func(p *v1.Pod, _ bool, _ *int64, _ func(*v1.PodStatus)) error {
				killed = append(killed, string(p.UID))
				return nil
			},
			Logger: klog.Background(), Restart: true})
		if err != nil {
			t.Fatal(err)
		}
		first := m.bus
		t0 := time.Now()
		if err := m.RestartLogind(); err != nil {
			t.Fatal(err)
		}
		if got := time.Since(t0); got != 2*time.Second {
			t.Errorf("watching again took %v, want 2s (a failed reconnect, then a good one, a period apart)", got)
		}
		if n := m.conns.count(); n != 3 || m.bus == first || m.bus != m.conns.all[2] {
			t.Fatalf("%d connections, watching the third: %v; want 3, the third", n, m.bus == m.conns.all[2])
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
	})
}
