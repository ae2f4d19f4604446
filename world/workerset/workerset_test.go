package workerset

import (
	"testing"

	"github.com/podsim/podsim/sim"
)

// TestLiveWorkersAsAMap: the live worker goroutines (a list found by
// scans) hold what a map by name and kubelet process would, the map they
// replaced: random starts, returns and lookups over two names and two
// processes, a start under a live key included, leave both the same. A
// scan that ignores the process, or a return that removes another key's
// goroutine, fails here.
func TestLiveWorkersAsAMap(t *testing.T) {
	type key struct {
		name    string
		kubelet int
	}
	src := sim.NewPCG(1)
	var ws Set
	model := map[key]*Goroutine{}
	for step := range 2000 {
		k := key{[]string{"worker/a", "worker/b"}[src.Intn(2)], src.Intn(2)}
		switch src.Intn(3) {
		case 0:
			g := &Goroutine{Name: k.name, Kubelet: k.kubelet, Started: step}
			ws.Put(g)
			model[k] = g
		case 1:
			ws.Remove(k.name, k.kubelet)
			delete(model, k)
		}
		var got *Goroutine
		if i := ws.At(k.name, k.kubelet); i >= 0 {
			got = ws.Live[i]
		}
		if got != model[k] || len(ws.Live) != len(model) {
			t.Fatalf("step %d, %v: found %v of %d, the map %v of %d", step, k, got, len(ws.Live), model[k], len(model))
		}
	}
}
