package realvk

import (
	"strings"
	"testing"
	"testing/synctest"

	"github.com/podsim/podsim/realvk/script"
)

// runDrained applies each line of text, then every move the
// controller's side offers (successful) and a few sleeps, so each action
// is fully handled before the next; then finishes the run.
func runDrained(t *testing.T, text string) (Result, *Driver) {
	t.Helper()
	moves, _, err := script.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	var r Result
	var d *Driver
	synctest.Test(t, func(t *testing.T) {
		d = NewDriver()
		for _, m := range moves {
			if !d.Apply(m) {
				t.Errorf("move %q could not happen", m)
			}
			for range 3 {
				d.releaseAll()
				d.Apply(script.Move{Kind: script.MoveSleep})
			}
		}
		r = d.Finish("script", 0)
	})
	return r, d
}

// TestSmokeCreateUpdateDelete: the real controller, started in a bubble,
// creates a pod in the provider, writes the provider's status to the API,
// deletes the pod in the provider after a graceful API delete and removes
// the API object with a UID precondition once the grace ran out; then it
// shuts down cleanly (Done closes with a nil Err; no goroutine is left, or
// synctest.Test would fail) and the shared VK oracle finds nothing.
func TestSmokeCreateUpdateDelete(t *testing.T) {
	r, d := runDrained(t, `vk-start
vk-create uid=a name=web
vk-status uid=a phase=Running
vk-edit uid=a
vk-status uid=a
vk-delete uid=a name=web grace=5
`)
	trace := strings.Join(r.Trace, "\n")
	for _, want := range []string{"provider.CreatePod default/web uid=a -> ok", "api.UpdateStatus default/web uid=a",
		"phase=Running -> ok", "provider.DeletePod default/web uid=a", "api.Delete default/web grace=0 uid-precondition=a -> ok",
		"api DELETED default/web uid=a"} {
		if !strings.Contains(trace, want) {
			t.Errorf("trace lacks %q", want)
		}
	}
	for _, f := range r.Findings {
		t.Errorf("finding: %s", f)
	}
	if n := len(d.W.backend); n != 0 {
		t.Errorf("%d pods left in the provider", n)
	}
	if items, _ := d.W.api.List(); len(items) != 0 {
		t.Errorf("%d pods left in the API", len(items))
	}
	if !d.W.done[1] || !d.W.ready[1] {
		t.Errorf("controller never ready (%v) or done (%v)", d.W.ready[1], d.W.done[1])
	}
	if t.Failed() {
		t.Log("\n" + trace)
	}
}
