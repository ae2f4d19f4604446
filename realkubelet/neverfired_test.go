package realkubelet

import (
	"strings"
	"testing"

	"github.com/podsim/podsim/realkubelet/planted"
)

// TestL6LookAlikeStaysUnexplained: an L6 no S14 judged is named by
// explain.NeverFired (G2: the runtime-only record the kill joined was
// forgotten; GD: the kill's record is GD's stuck one). A completion that
// never fired though a SyncTerminatingPod of its record succeeded (the
// planted decoy channel) stays unexplained, and so does every L6 of
// it; the scripts of the two new shapes name G2 and GD.
func TestL6LookAlikeStaysUnexplained(t *testing.T) {
	r := runScriptWith(t, mustParse(t, plantedScripts[planted.DecoyCompletion]), RunOptions{plant: planted.DecoyCompletion})
	got := l6Findings(r)
	if len(got) == 0 {
		t.Fatalf("decoy completion: no L6; findings %v", r.Findings)
	}
	for _, f := range got {
		if !strings.HasPrefix(f, "[UNEXPLAINED]") {
			t.Errorf("decoy completion: L6 explained: %s", f)
		}
	}
	for file, want := range map[string]string{"G2-runtime-record-forgets-kill": "[G2]", "GD-kill-completion-never-fires": "[GD]"} {
		moves, _ := readScript(t, "testdata/"+file+".script")
		got := l6Findings(runScriptWith(t, moves, RunOptions{}))
		if len(got) == 0 {
			t.Errorf("%s: no L6", file)
		}
		for _, f := range got {
			if !strings.HasPrefix(f, want) {
				t.Errorf("%s: L6 %s, want %s", file, f, want)
			}
		}
	}
}

func l6Findings(r Result) []string {
	var out []string
	for _, f := range r.Findings {
		if f.Invariant == "L6" {
			out = append(out, f.String())
		}
	}
	return out
}
