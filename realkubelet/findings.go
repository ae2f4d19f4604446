package realkubelet

import (
	"fmt"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/realdriver"
)

// Finding is one violation found in a run on the real pod workers: a
// history.Violation (Oracle is "direct" for the checks in checks.go,
// "liveness" for checkSettled's, "linearizability" for the shared oracle's)
// with the driver step it was found at (0: at the end) and its class.
type Finding struct {
	history.Violation
	Step int
	// Class is the upstream deviation it is (G1–G4, GA–GE), M1 for the
	// documented model difference (see docs/upstream-findings.md), or ""
	// if unexplained.
	Class string
}

func (f Finding) String() string {
	return fmt.Sprintf("[%s] %s %s at step %d: %s", realdriver.ClassLabel(f.Class), f.Oracle, f.Invariant, f.Step, f.Message)
}

// checker holds what the direct checks need between steps.
type checker struct {
	findings []Finding
	seen     map[string]bool
	overlaps int
}

func (d *Driver) report(check, invariant, class, msg string) {
	d.reportAt(d.Step, check, invariant, class, msg)
}

// reportAt reports a finding caused by an earlier step than the current
// one (GA: the update that lengthened the grace, seen only when the next
// SyncTerminatingPod begins).
func (d *Driver) reportAt(step int, check, invariant, class, msg string) {
	key := check + invariant + msg
	if d.checks.seen == nil {
		d.checks.seen = map[string]bool{}
	}
	if d.checks.seen[key] {
		return
	}
	d.checks.seen[key] = true
	v := history.Violation{Oracle: check, Invariant: invariant, Message: msg, At: d.h.Now().Sub(d.h.Start), Seq: d.h.Seq}
	d.checks.findings = append(d.checks.findings, Finding{Violation: v, Step: step, Class: class})
}
