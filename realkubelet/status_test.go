package realkubelet

import (
	"strings"
	"testing"

	"github.com/podsim/podsim/realkubelet/components"
	"github.com/podsim/podsim/realkubelet/planted"
	"github.com/podsim/podsim/realkubelet/script"
)

// lifecycleScript runs a pod through create, graceful delete and the
// status manager's final delete, with status passes and echoes between.
const lifecycleScript = `create a
release a ok
status-sync
echo
delete a grace=5
release a ok
status-sync
release a ok
status-sync
echo
`

func traceHas(r Result, s string) bool {
	for _, l := range r.Trace {
		if strings.Contains(l, s) {
			return true
		}
	}
	return false
}

// TestStatusManagerWritesAndDeletes: on the real status manager the pod's
// phase reaches the API (Running, then Failed once nothing runs), its
// final delete comes after SyncTerminatedPod, the echo removes it from
// config, and the kubelet oracle finds nothing.
func TestStatusManagerWritesAndDeletes(t *testing.T) {
	r := runScriptWith(t, mustParse(t, lifecycleScript), RunOptions{})
	if r.Failed() {
		t.Fatalf("findings: %v", r.Findings)
	}
	for _, want := range []string{"PhaseWritten{UID:a Phase:Running}", "DeleteRequested{UID:a Grace:5}",
		"PhaseWritten{UID:a Phase:Failed}", "Removed{UID:a By:status manager", "UpdatePod a kill"} {
		if !traceHas(r, want) {
			t.Errorf("trace lacks %q:\n%s", want, strings.Join(r.Trace, "\n"))
		}
	}
}

// TestStatusComponentOff: without the component the status moves cannot
// happen and nothing kubelet-level is recorded (the pod workers alone).
func TestStatusComponentOff(t *testing.T) {
	r := runScriptWith(t, mustParse(t, lifecycleScript), RunOptions{Real: components.Only()})
	if r.Failed() {
		t.Fatalf("findings: %v", r.Findings)
	}
	if traceHas(r, "noted") {
		t.Fatalf("notes without the status component:\n%s", strings.Join(r.Trace, "\n"))
	}
	for _, m := range r.Moves {
		if m.Kind == script.MoveStatusSync || m.Kind == script.MoveEcho {
			t.Fatalf("status move %s happened without the component", m)
		}
	}
}

// TestStatusPlantsAreCaught is the kubelet oracle's negative test on this
// target: a status manager told no container runs writes a terminal phase
// too early (K2); TerminatePod before SyncTerminatedPod succeeded lets the
// final delete come before the pod is finished (K3); no TerminatePod
// leaves the deleted pod in the API (L7); statuses the manager never got
// leave the API's phase behind the kubelet's after settling (P5), and so do
// statuses without their readiness; a terminal status written with the pod
// still ready is K7; a node shutdown's Failed written without its
// DisruptionTarget condition is K8. Each is unexplained; the same
// scripts without the plant are clean.
func TestStatusPlantsAreCaught(t *testing.T) {
	cases := []struct {
		bug       planted.Bug
		invariant string
		script    string
	}{
		{planted.UnsafeStatus, "K2", "create a\nrelease a terminal\nstatus-sync\n"},
		{planted.EarlyTerminate, "K3", "create a\nrelease a ok\ndelete a grace=5\nrelease a ok\nstatus-sync\n"},
		{planted.NoTerminate, "L7", "create a\nrelease a ok\ndelete a grace=5\nrelease a ok\nrelease a ok\nstatus-sync\n"},
		{planted.LoseStatus, "P5", "create a\nrelease a ok\n"},
		{planted.ReadyTerminal, "K7", lifecycleScript},
		{planted.LoseReadiness, "P5", "create a\nrelease a ok\n"},
		{planted.StripDisruption, "K8", "create a\nrelease a ok\nstatus-sync\nshutdown\ndeliver a\nrelease a ok\nstatus-sync\n"},
	}
	for _, c := range cases {
		moves := mustParse(t, c.script)
		if r := runScriptWith(t, moves, RunOptions{}); len(r.Unexplained()) > 0 {
			t.Errorf("%s script fails without the plant: %v", c.invariant, r.Findings)
		}
		r := runScriptWith(t, moves, RunOptions{plant: c.bug})
		found := false
		for _, f := range r.Unexplained() {
			found = found || f.Invariant == c.invariant
		}
		if !found {
			t.Errorf("planted %s bug: no unexplained %s finding; findings %v", c.invariant, c.invariant, r.Findings)
		}
	}
}

// TestTriggeredPassIsJudged (P5's other half): a status manager whose
// triggered passes write nothing is caught right after its first one,
// though its full passes would write the phase later; the same script
// without the plant is clean.
func TestTriggeredPassIsJudged(t *testing.T) {
	moves := mustParse(t, "create a\nrelease a ok\nstatus-sync\n")
	if r := runScriptWith(t, moves, RunOptions{}); len(r.Unexplained()) > 0 {
		t.Fatalf("without the plant: %v", r.Findings)
	}
	var got []string
	for _, f := range runScriptWith(t, moves, RunOptions{plant: planted.TriggeredSyncSkipped}).Unexplained() {
		if f.Invariant == "P5" {
			got = append(got, f.String())
		}
	}
	if len(got) != 1 || !strings.Contains(got[0], `pod a: the kubelet set phase Running, but the API still holds "Pending" right after a triggered status pass`) {
		t.Fatalf("P5 %q, want one about the triggered pass", got)
	}
}
