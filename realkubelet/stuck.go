package realkubelet

import (
	"fmt"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/realkubelet/finding"
	"github.com/podsim/podsim/realkubelet/goroutines"
)

// A run ends by tearing every pod down (Teardown) so that the synctest
// bubble can close: synctest requires every goroutine started in it to
// have exited when the run returns, and panics ("main bubble goroutine has
// exited but blocked goroutines remain") otherwise. A kubelet bug that
// leaves a worker goroutine running forever (its update channel never
// closed, or blocked on something that never comes) would crash the whole
// sweep there. Instead, after Teardown the driver lists the goroutines of
// its bubble that run kubelet code (stuckGoroutines) and reports each as
// a liveness finding (L2: finished and not desired ⇒ forgotten, which
// includes the worker going away), naming the goroutine, where it waits
// and the last step of each pod whose update channel is still open;
// Bubble recovers the panic that follows, so the sweep goes on.
//
// Limit: a goroutine that spins, or blocks on a mutex held forever, is not
// durably blocked, so synctest.Wait never returns and the run hangs until
// the test binary's -test.timeout (realrun gate's sweeps: 60m) kills it.

// Bubble runs run in a synctest bubble and returns its result. If the run
// left blocked goroutines behind, the runtime's panic is recovered and the
// result keeps (or gains) a liveness finding for them.
func Bubble(t *testing.T, run func() Result) (r Result) {
	t.Helper()
	defer func() {
		p := recover()
		if p == nil {
			return
		}
		if !strings.Contains(fmt.Sprint(p), "blocked goroutines remain") {
			panic(p)
		}
		for _, f := range r.Findings {
			if f.Invariant == "L2" && strings.HasPrefix(f.Message, teardownPrefix) {
				return
			}
		}
		r.Findings = append(r.Findings, finding.Finding{Violation: history.Violation{Oracle: "liveness", Invariant: "L2",
			Message: teardownPrefix + "the bubble still had blocked goroutines when the run ended (none runs kubelet code)"}})
	}()
	synctest.Test(t, func(t *testing.T) { r = run() })
	return r
}

const teardownPrefix = "teardown: "

// stuckWorkers are the liveness findings for goroutines running kubelet
// code that outlived Teardown, one per distinct goroutine shape.
func (d *Driver) stuckWorkers() []finding.Finding {
	d.waitQuiet()
	stuck := goroutines.Stuck("k8s.io/kubernetes/")
	if len(stuck) == 0 {
		return nil
	}
	var pods []string
	for _, uid := range d.gates.OpenWorkers() {
		s := d.lastMoved[uid]
		last := "none"
		if s > 0 {
			last = fmt.Sprintf("%d (%s)", s, d.Moves[s-1])
		}
		pods = append(pods, fmt.Sprintf("%s, last step %s", uid, last))
	}
	who := "no pod's update channel is open"
	if len(pods) > 0 {
		who = "update channel still open for pod " + strings.Join(pods, "; pod ")
	}
	var out []finding.Finding
	for _, g := range stuck {
		out = append(out, finding.Finding{Violation: history.Violation{Oracle: "liveness", Invariant: "L2",
			Message: fmt.Sprintf("%s%s cannot be torn down; %s", teardownPrefix, g, who)}})
	}
	// Reported: now let what can go, go (the run is over, nothing calls
	// the workers any more), so the bubble closes and no goroutine leaks
	// into the next run. What still blocks is left to Bubble.
	d.gates.CloseOpenWorkers()
	d.waitQuiet()
	return out
}
