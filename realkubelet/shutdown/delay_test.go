package shutdown

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
)

// TestDelayRule: a watch that begins while logind's delay is short of the
// groups' total is a problem: no override, an override never reloaded, one
// reloaded but not yet applied ("slow"); an applied one, or groups within
// the delay, are not.
func TestDelayRule(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for _, c := range []struct {
			name, mode string
			requested  time.Duration
			steps      func(*delayConf)
			bad        bool
		}{
			{"within the delay", "reload", 3 * time.Second, func(*delayConf) {}, false},
			{"no override", "reload", 10 * time.Second, func(*delayConf) {}, true},
			{"override, no reload", "reload", 10 * time.Second, func(c *delayConf) { c.write(10 * time.Second) }, true},
			{"reloaded", "reload", 10 * time.Second, func(c *delayConf) { c.write(10 * time.Second); c.reload() }, false},
			{"slow, watched at once", "slow", 10 * time.Second, func(c *delayConf) { c.write(10 * time.Second); c.reload() }, true},
			{"slow, watched after it applied", "slow", 10 * time.Second, func(c *delayConf) {
				c.write(10 * time.Second)
				c.reload()
				time.Sleep(time.Second)
			}, false},
			{"too small an override", "reload", 10 * time.Second, func(c *delayConf) { c.write(8 * time.Second); c.reload() }, true},
			{"no fault: a day", "", 10 * time.Second, func(*delayConf) {}, false},
		} {
			conf := newDelayConf(c.mode, c.requested, 0)
			c.steps(conf)
			conf.watching()
			if got := conf.judged(); (len(got) > 0) != c.bad {
				t.Errorf("%s: problems %q, want some: %v", c.name, got, c.bad)
			}
		}
	})
}

// TestShortDelayOverridden: with groups of 12 s and logind's delay at
// 5 s, the real manager overrides it, reloads and polls until it applies
// (at once, or at the fifth check, 1.5 s in, when logind takes a second),
// then watches: no problem, and the shutdown is processed.
func TestShortDelayOverridden(t *testing.T) {
	for _, c := range []struct {
		mode string
		took time.Duration
	}{{"reload", 0}, {"slow", 1500 * time.Millisecond}} {
		t.Run(c.mode, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				t0 := time.Now()
				m, err := Start(t.Context(), Config{Groups: []Group{{Priority: 0, Grace: 10}, {Priority: 1000, Grace: 2}},
					ActivePods: func() []*v1.Pod { return nil }, Kill: func(*v1.Pod, bool, *int64, func(*v1.PodStatus)) error { return nil },
					Logger: klog.Background(), ShortDelay: c.mode})
				if err != nil {
					t.Fatal(err)
				}
				if got := time.Since(t0); got != c.took || m.StartProblem() != "" {
					t.Fatalf("start took %v (want %v), problem %q", got, c.took, m.StartProblem())
				}
				if d := m.bus.conf.current(); d != 12*time.Second {
					t.Errorf("logind's delay after the start: %v, want the groups' 12s", d)
				}
				if got := m.DelayProblems(); got != nil {
					t.Errorf("delay problems: %q", got)
				}
				m.Trigger()
				synctest.Wait()
				time.Sleep(13 * time.Second)
				synctest.Wait()
				if !m.Done() {
					t.Error("the shutdown was not processed")
				}
				m.Stop()
				synctest.Wait()
			})
		})
	}
}

// TestShortDelayStartFailure: a start that fails under ShortDelay leaves
// a manager that says why and whose Trigger sends nothing (no loop reads
// the channel), rather than an error that stops the run.
func TestShortDelayStartFailure(t *testing.T) {
	m := &Manager{startErr: "the node shutdown manager's start failed: x", bus: newLogind()}
	m.Trigger() // must not block
	if !strings.Contains(m.StartProblem(), "start failed") || m.Done() {
		t.Errorf("problem %q, done %v", m.StartProblem(), m.Done())
	}
}
