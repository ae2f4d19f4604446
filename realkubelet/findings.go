package realkubelet

import (
	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/realkubelet/finding"
)

// checker holds what the direct checks need between steps.
type checker struct {
	findings []finding.Finding
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
	v := history.Violation{Oracle: check, Invariant: invariant, Message: msg, At: d.h.Elapsed(), Seq: d.h.Seq}
	d.checks.findings = append(d.checks.findings, finding.Finding{Violation: v, Step: step, Class: class})
}

// kubeletClass is the class of a kubelet oracle's finding: a K5's is GH's,
// GI's or GK's if a predicate held at the note (k5class); a K2's or K3's the
// status component's (GF, GG); any other's "".
func (d *Driver) kubeletClass(v history.Violation) string {
	if v.Invariant == "K5" {
		return d.k5.Class(v.Seq)
	}
	if d.st != nil {
		return d.st.Class(v)
	}
	return ""
}
