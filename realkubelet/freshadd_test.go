package realkubelet

import (
	"strings"
	"testing"

	"github.com/podsim/podsim/realkubelet/script"
)

// TestFreshAddIsANewObject: a pod that left config and the API, whose
// containers were then reported finished (Failed), and which is created
// again under its UID is a new object: config delivers it as the API
// server has it, not with the old object's terminal phase. Before the
// driver reset the phase on a fresh ADD (configAdd), config said Failed
// while the re-created object said Pending; the pod workers never ran it,
// and the status manager's Failed for the old object never reached the
// new one: a P5 no deviation explains (a guided api-shapes run in hold
// mode, shrunk 43 → 9 moves).
func TestFreshAddIsANewObject(t *testing.T) {
	moves, _, err := script.Parse(`remove a name=web
create c name=web spec-grace=1
release a ok
release a ok
tick
status-sync order=b,c
finish a name=web phase=Failed
remove c name=web spec-grace=1
create a name=web evict
`)
	if err != nil {
		t.Fatal(err)
	}
	r := runScript(t, moves)
	for _, f := range r.Unexplained() {
		t.Errorf("unexplained: %s", f)
	}
	created, failed := false, false
	for _, l := range r.Trace {
		created = created || strings.Contains(l, "UpdatePod a create v2 ")
		failed = failed || strings.Contains(l, "UpdatePod a create v2 Failed")
	}
	if !created || failed {
		t.Errorf("config's pod a after its fresh ADD (created %v) is delivered Failed (%v), the old object's phase; trace:\n%s",
			created, failed, strings.Join(r.Trace, "\n"))
	}
}
