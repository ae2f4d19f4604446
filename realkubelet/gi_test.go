package realkubelet

import (
	"strings"
	"testing"

	"github.com/podsim/podsim/realkubelet/components"
	"github.com/podsim/podsim/realkubelet/planted"
)

// giShape is testdata/GI-status-dropped-by-shared-name.script's moves,
// with the API pod c's name left to fill in.
const giShape = `create c %sprio=2000000000
shutdown static=web
create d static=web prio=1000
remove d static=web
status-sync order=c,d
create d static=web prio=1000
`

func giScript(shared bool) string {
	if shared {
		return strings.Replace(giShape, "%s", "name=web ", 1)
	}
	return strings.Replace(giShape, "%s", "", 1)
}

// TestGINeedsTheSharedName: GI's shape with the API pod under its own
// name shows no K5 at all (the status pass finds no object of another UID
// under d's name and keeps rejectPod's Failed, so housekeeping never
// starts d); with the shared name it is one K5, GI's.
func TestGINeedsTheSharedName(t *testing.T) {
	if got := kFindings(runActorsScript(t, giScript(false), RunOptions{}), "K5"); len(got) > 0 {
		t.Fatalf("K5 without the shared name: %q", got)
	}
	got := kFindings(runActorsScript(t, giScript(true), RunOptions{}), "K5")
	if len(got) != 1 || !strings.HasPrefix(got[0], "[GI]") {
		t.Fatalf("K5 findings with the shared name %q, want one GI", got)
	}
}

// TestGINeedsTheDroppedStatus: a K5 whose ADD skipped admission for a kill
// with the pod but whose status nothing dropped (GH's look-alike: a bare
// kill before the pod's ADD, the status component off) is not GI; and the
// shutdown's planted bug (admission lets pods in) stays unexplained in
// GI's shape, with and without the shared name.
func TestGINeedsTheDroppedStatus(t *testing.T) {
	const lookalike = "create c name=web prio=2000000000\nkill d static=web\nshutdown static=web\ncreate d static=web prio=1000\n"
	cases := []struct {
		name, text string
		o          RunOptions
	}{
		{"look-alike", lookalike, RunOptions{Real: components.Only(components.Shutdown, components.Eviction)}},
		{"planted, shared name", giScript(true), RunOptions{plant: planted.AdmitInShutdown}},
		{"planted, own name", giScript(false), RunOptions{plant: planted.AdmitInShutdown}},
	}
	for _, c := range cases {
		got := kFindings(runActorsScript(t, c.text, c.o), "K5")
		if len(got) == 0 {
			t.Errorf("%s: no K5", c.name)
		}
		for _, f := range got {
			if !strings.Contains(f, "UNEXPLAINED") {
				t.Errorf("%s: K5 explained: %s", c.name, f)
			}
		}
	}
}
