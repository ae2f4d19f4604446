package realvk

import (
	"strings"
	"testing"
	"testing/synctest"

	"github.com/podsim/podsim/realvk/script"
)

// TestStatusNeverNotifiedIsLiveness: a provider status that is due when
// the settle phase ends never reached the controller, and the driver
// says so (the real controller's NotifyPods registration removed, a
// mutant VK2 alone cannot see: it compares the API with the statuses
// notified, and none is). Planted here by forgetting the registered
// callback before the run settles; the same run with it kept delivers
// the status and has no finding.
func TestStatusNeverNotifiedIsLiveness(t *testing.T) {
	const text = "vk-start\nvk-create uid=a name=web\nvk-status uid=a phase=Running\n"
	for _, forget := range []bool{false, true} {
		moves, _, err := script.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		var r Result
		synctest.Test(t, func(t *testing.T) {
			d := NewDriver()
			for i, m := range moves {
				if !d.Apply(m) {
					t.Errorf("move %q could not happen", m)
				}
				if i < len(moves)-1 { // the status stays due
					d.releaseAll()
				}
			}
			if forget {
				d.W.mu.Lock()
				delete(d.W.notifyCB, d.W.gen)
				d.W.mu.Unlock()
			}
			r = d.Finish("script", 0)
		})
		var got []string
		for _, f := range r.Findings {
			if f.Check == "liveness" {
				got = append(got, f.Message)
			}
		}
		want := 0
		if forget {
			want = 1
		}
		if len(got) != want || (forget && !strings.Contains(got[0], "default/web was never notified: the controller registered no notification callback")) {
			t.Errorf("callback forgotten %v: liveness findings %q, want %d", forget, got, want)
		}
	}
}
