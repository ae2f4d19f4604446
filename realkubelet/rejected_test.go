package realkubelet

import (
	"slices"
	"strings"
	"testing"

	"github.com/podsim/podsim/realkubelet/script"
)

// A pod the node shutdown rejects at admission is still in the pod manager:
// housekeeping hands it to SyncKnownPods as desired (not as an orphan to
// drive), the status manager is told it Failed (rejectPod), and once it is
// deleted, HandlePodCleanups' kill of a terminal, deleted pod the workers
// do not know lets the status manager remove it from the API. Both scripts
// were shrunk from swarm seed 224, on the driver before these rules (an
// unexplained S3 and an unexplained L7).
func TestRejectedPodRules(t *testing.T) {
	for _, tc := range []struct {
		name, script, want string // want: a trace line's substring
	}{
		{"rejected pod stays desired", "update a spec-grace=1\nshutdown spec-grace=1\ncreate a spec-grace=1\n", "SyncKnownPods [a]"},
		{"rejected, deleted pod leaves the API", "shutdown spec-grace=5\ncreate c\ndelete c grace=10\n", "Removed{UID:c"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			moves, _, err := script.Parse(tc.script)
			if err != nil {
				t.Fatal(err)
			}
			r := runScript(t, moves)
			for _, f := range r.Findings {
				t.Errorf("finding: %s", f)
			}
			if !slices.ContainsFunc(r.Trace, func(l string) bool { return strings.Contains(l, tc.want) }) {
				t.Errorf("no trace line with %q:\n%s", tc.want, strings.Join(r.Trace, "\n"))
			}
		})
	}
}
