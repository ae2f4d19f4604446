// Package finding is what a run on the real kubelet reports: a Finding
// (a violation, the driver step it was found at, the known deviation that
// explains it) and the catalogue of known deviations an explanation may
// use, with the model switch each names (docs/upstream-findings.md, "How
// every finding is classified"; the exact predicates are the driver's,
// package realkubelet/explain).
package finding

import (
	"fmt"
	"slices"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/deviation"
	"github.com/podsim/podsim/realdriver"
)

// Finding is one violation found in a run on the real pod workers: a
// history.Violation (Oracle is "direct" for the driver's checks (checks.go),
// "liveness" for its settle checks, "linearizability" for the shared oracle's)
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

// KnownDeviations is the catalogue an explanation may use: every known
// upstream deviation of v1.36.3 and the documented model difference M1.
var KnownDeviations = []string{"G1", "G2", "G3", "G4", "GA", "GB", "GC", "GD", "GE", "GF", "GG", "GH", "GI", "GJ", "GK", "M1"}

// Apply clears the class of every finding whose deviation is not
// in the catalogue (tests drop one to show its findings turn unexplained),
// and returns the model switches the remaining classes name.
func Apply(findings []Finding, catalogue []string) deviation.Set {
	var dev deviation.Set
	for i := range findings {
		f := &findings[i]
		if f.Class == "" {
			continue
		}
		if !slices.Contains(catalogue, f.Class) {
			f.Message += fmt.Sprintf(" [%s is not in the catalogue of known deviations]", f.Class)
			f.Class = ""
			continue
		}
		dev |= Switch(f.Class)
	}
	return dev
}

// Switch is the model switch a class names: its own for G1–G4, GA and
// GC; GC's for M1 (the visible consequence of completeSync recording no
// grace, deviation.GC); none for GB, GD and GE (exact predicates only).
func Switch(class string) deviation.Set {
	if class == "M1" {
		return deviation.GC
	}
	x, _ := deviation.Named(class)
	return x
}
