package realkubelet

import (
	"os"
	"strings"
	"testing"

	"github.com/podsim/podsim/realkubelet/planted"
)

// TestGFLookAlikeStaysUnexplained: GF's widened predicate (TerminatePod
// ran for an earlier record and none for the current one, whatever the
// current record began) must not take a K3 whose own record called
// TerminatePod: with the planted early TerminatePod (at SyncTerminatedPod's
// begin) the shape of plain api-shapes seed 7,568 keeps its K3, and it is
// unexplained; without the plant it is GF.
func TestGFLookAlikeStaysUnexplained(t *testing.T) {
	text, err := os.ReadFile("testdata/GF-new-record-began-syncpod.script")
	if err != nil {
		t.Fatal(err)
	}
	moves := mustParse(t, string(text))
	for _, c := range []struct {
		plant planted.Bug
		want  string
	}{{0, "[GF]"}, {planted.EarlyTerminate, "[UNEXPLAINED]"}} {
		got := kFindings(runScriptWith(t, moves, RunOptions{plant: c.plant}), "K3")
		if len(got) != 1 || !strings.HasPrefix(got[0], c.want) {
			t.Errorf("plant %d: K3 findings %q, want one %s", c.plant, got, c.want)
		}
	}
}
