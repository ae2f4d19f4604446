package realkubelet

import (
	"testing"
	"testing/synctest"

	"k8s.io/apimachinery/pkg/types"
)

// TestTeardownFindingClass: the teardown's L2 is GE's only when every pod
// the workers still knew is a record GE left terminated but never
// finished; one pod without that evidence leaves it unexplained.
func TestTeardownFindingClass(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := newDriver(RunOptions{})
		d.ev.NoteGhost("a", 3)
		d.ev.CompletedOntoNext["a"] = true
		for _, c := range []struct {
			left []types.UID
			want string
		}{
			{[]types.UID{"a"}, "GE"},
			{[]types.UID{"a", "b"}, ""},
			{[]types.UID{"b"}, ""},
			{nil, ""},
		} {
			d.leftKnown = c.left
			if f := d.teardownFinding(); f.Class != c.want || f.Invariant != "L2" {
				t.Errorf("left %v: %s %q, want L2 %q", c.left, f.Invariant, f.Class, c.want)
			}
		}
	})
}
