package regress

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/podsim/podsim/run"
	"github.com/podsim/podsim/sim"
)

// RegressDir is where regression scripts live, relative to the module
// root; TestRegressionScripts re-runs every script in it.
const RegressDir = "regress/testdata"

// Script is a shrunk failure as a cockroachdb/datadriven regression script:
// the Case (plan, faults, both choice lists) as set-up directives, then
// `run` directives whose expected output is the verdict. Re-running it needs
// no seed and no generator, so it keeps testing the same story when the
// families change.
type Script struct {
	// Command is the command that produced the script ("simrun shrink
	// --scenario swarm --seed 17 --mutant B2"), recorded in the header so
	// that the script can be made again.
	Command string
	// Notes are further header comment lines (what the story is about).
	Notes    []string
	Strategy sim.Strategy
	Case     run.Case
	// Mutant is the catalogued bug the failure needs ("" if it fails on the
	// correct code): the script then runs the case twice, once expecting
	// the correct code to pass and once expecting the mutant's violation.
	Mutant string
	// Marks adds the coverage marks the run reaches to every `run` output,
	// for stories about reaching a situation rather than failing in it.
	Marks bool
	// FaultPoints: the case was run with the fault points armed
	// (run.CheckOptions.FaultPoints). The script then has a fault-points
	// directive, its runs arm them, and each `run` output names the points
	// the fault choices switched on. Without it a script reads and runs as
	// it always did.
	FaultPoints bool
}

// RenderScript writes s, running its case to fill in the expected output
// of each `run` directive (opts' Mutant is set per directive).
func RenderScript(s Script, opts run.CheckOptions) string {
	var b strings.Builder
	b.WriteString("# Regression script (cockroachdb/datadriven): a shrunk run as data.\n")
	if s.Command != "" {
		fmt.Fprintf(&b, "# command: %s\n", s.Command)
	}
	for _, n := range s.Notes {
		fmt.Fprintf(&b, "# %s\n", n)
	}
	b.WriteString("# Re-run: go test ./regress -run TestRegressionScripts (-rewrite updates the expected output).\n\n")
	p := s.Case.Plan
	fmt.Fprintf(&b, "plan family=%s clients=%d %s\n", p.Family, p.Clients, StrategyArgs(s.Strategy))
	for _, a := range p.Actions {
		b.WriteString(FormatScriptAction(a) + "\n")
	}
	b.WriteString("----\n\n")
	if extra := PlanExtraJSON(p); extra != "" {
		fmt.Fprintf(&b, "plan-json\n%s\n----\n\n", extra)
	}
	fmt.Fprintf(&b, "faults %s\n----\n\n", FaultArgs(p.Faults))
	if s.FaultPoints {
		b.WriteString(FaultPointsDirective + "\n----\n\n")
	}
	writeChoices(&b, "schedule", s.Case.Schedule)
	writeChoices(&b, "fault-choices", s.Case.Faults)
	marks := ""
	if s.Marks {
		marks = " marks"
	}
	for _, mutant := range uniqueMutants(s.Mutant) {
		o := opts
		o.Mutant = mutant
		o.FaultPoints = s.FaultPoints
		directive := "run" + marks
		if mutant != "" {
			directive = fmt.Sprintf("run mutant=%s%s", mutant, marks)
		}
		fmt.Fprintf(&b, "%s\n----\n%s\n\n", directive, ScriptVerdict(run.RunCase(s.Case, s.Strategy, o), s.Marks))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// uniqueMutants is the runs of a script: the correct code, then the mutant.
func uniqueMutants(mutant string) []string {
	if mutant == "" {
		return []string{""}
	}
	return []string{"", mutant}
}

func writeChoices(b *strings.Builder, directive string, xs []int) {
	b.WriteString(directive + "\n")
	if len(xs) > 0 {
		b.WriteString(FormatChoices(xs) + "\n")
	}
	b.WriteString("----\n\n")
}

// ScriptVerdict is a `run` directive's output: "ok", or FAIL and one line
// per failure (the scheduler's error, then each violation); for a run with
// the fault points armed, those it switched on ("none" if none); with
// marks, the coverage marks reached.
func ScriptVerdict(r run.Result, marks bool) string {
	lines := []string{"ok"}
	if r.Failed() {
		lines = []string{"FAIL"}
		if r.Err != nil {
			first, _, _ := strings.Cut(r.Err.Error(), "\n")
			lines = append(lines, "scheduler "+run.SchedulerErrorKind(r.Err)+": "+first)
		}
		for _, v := range r.Violations {
			lines = append(lines, v.String())
		}
	}
	if r.FaultPointsArmed {
		lines = append(lines, "fault points on: "+cmp.Or(strings.Join(r.FaultPoints, ", "), "none"))
	}
	if marks {
		lines = append(lines, "marks: "+strings.Join(r.Marks, ", "))
	}
	return strings.Join(lines, "\n")
}

// FaultPointsDirective is the set-up directive of a script whose case ran
// with the fault points armed: it takes no argument and no input. The
// points on are not an input: the fault choices switch them on (the run's
// first fault draws), so the directive is all a replay needs; the `run`
// output lists them, so a replay that switched on others differs.
const FaultPointsDirective = "fault-points"

// ScriptName is the file name simrun shrink gives a script by default:
// <scenario>-seed<S>[-<mutant>].txt.
func ScriptName(scenario string, seed uint64, mutant string) string {
	name := fmt.Sprintf("%s-seed%d", scenario, seed)
	if mutant != "" {
		name += "-" + strings.ToLower(mutant)
	}
	return name + ".txt"
}
