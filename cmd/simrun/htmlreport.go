package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/podsim/podsim/cmd/simrun/internal/outfile"
	"github.com/podsim/podsim/cmd/simrun/internal/tracetext"
	"github.com/podsim/podsim/oracle/linearize"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/report"
	"github.com/podsim/podsim/run"
	"github.com/podsim/podsim/shrink"
	"github.com/podsim/podsim/sim"
)

// The HTML failure report of one seed (package report): replay --report
// FILE writes it, and replay --out / run --out write it as report.html
// beside a failing seed's other artifacts. It is built by running the seed
// again, which costs milliseconds and keeps this file the only place that
// knows how: the run yields the trace (the timeline) and, in a temporary
// artifact directory, porcupine's page; a shrink yields the story.

// ReportFile is the report's name in an --out directory.
const ReportFile = "report.html"

// reportShrinkRuns bounds the shrink behind a report's story: a story
// shrunk a long way is far easier to read than none, but a sweep with
// --out writes a report for every failing seed, so each gets a fraction
// of shrink's default budget.
const reportShrinkRuns = 500

// writeSeedReport runs one seed again and writes its report to path.
func writeSeedReport(path string, fam plan.Family, seed uint64, st sim.Strategy, strategy string,
	opts run.CheckOptions) error {
	page, err := seedPage(fam, seed, st, strategy, opts)
	if err != nil {
		return err
	}
	data, err := report.HTML(page)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return outfile.WriteAtomically(path, data)
}

// seedPage runs the seed with the oracles' artifacts in a temporary
// directory (for porcupine's page), shrinks it, and fills the page.
func seedPage(fam plan.Family, seed uint64, st sim.Strategy, strategy string, opts run.CheckOptions) (
	report.Page, error) {
	tmp, err := os.MkdirTemp("", "simrun-report-*")
	if err != nil {
		return report.Page{}, err
	}
	defer os.RemoveAll(tmp)
	opts.Reproduce = reproduce(fam.Name, seed, strategy, opts.Mutant)
	opts.ArtifactDir = tmp
	rp := run.ReplaySeed(fam, seed, st, opts)
	r := rp.Result
	p := report.Page{Title: fmt.Sprintf("%s seed %d", fam.Name, seed), Scenario: fam.Name, Seed: seed,
		Strategy: strategy, Mutant: opts.Mutant, Reproduce: opts.Reproduce, Failed: r.Failed(), Verdict: r.String(),
		Plan: rp.Plan.String(), Timeline: tracetext.Timeline(rp.Trace, r.Elapsed)}
	p.Facts = []report.Fact{{Name: "virtual time", Value: r.Elapsed.String()},
		{Name: "steps", Value: fmt.Sprint(r.Steps)}, {Name: "trace sha256", Value: r.TraceSHA},
		{Name: "coverage marks", Value: strings.Join(r.Marks, ", ")}}
	p.Violations = pageViolations(r, p.Timeline)
	highlight(p.Timeline, p.Violations)
	if len(p.Violations) > 0 {
		p.Timeline.Windows = tracetext.Windows(r.Elapsed, p.Violations[0].At)
	}
	p.Porcupine, err = os.ReadFile(filepath.Join(tmp, linearize.ArtifactHTML))
	if errors.Is(err, os.ErrNotExist) {
		p.PorcupineNote = "Porcupine has no page for this seed: the linearizability oracle found no violation " +
			"(it runs porcupine's search only on a history whose witness replay fails; run --force-porcupine runs it always)."
	} else if err != nil {
		return report.Page{}, err
	}
	opts.ArtifactDir, opts.Reproduce = "", ""
	p.Story, p.StoryNote = shrunkStory(fam, seed, st, strategy, opts, rp)
	return p, nil
}

// pageViolations lists the scheduler's error, if any, then the oracles'
// violations, each with the goroutine it concerns when that can be told.
func pageViolations(r run.Result, t report.Timeline) []report.Violation {
	var out []report.Violation
	if r.Err != nil {
		kind := strings.TrimPrefix(run.FailureKeys(r)[0], "scheduler ")
		out = append(out, report.Violation{Oracle: "scheduler", Invariant: kind, At: r.Elapsed,
			Message: r.Err.Error(), Lane: tracetext.LaneOf(r.Err.Error(), t)})
	}
	for _, v := range r.Violations {
		out = append(out, report.Violation{Oracle: v.Oracle, Invariant: v.Invariant, At: v.At, Message: v.Message,
			Lane: tracetext.LaneOf(v.Message, t)})
	}
	return out
}

// highlight marks the lanes of the goroutines the violations concern.
func highlight(t report.Timeline, vs []report.Violation) {
	for i := range t.Lanes {
		for _, v := range vs {
			t.Lanes[i].Highlight = t.Lanes[i].Highlight || v.Lane == t.Lanes[i].Name
		}
	}
}

// checkReportPath fails early, before the run, when --report cannot be
// written.
func checkReportPath(path string) error {
	if path == "" {
		return nil
	}
	return outfile.CheckFile("--report", path)
}

// shrunkStory shrinks the seed for the story to read; if it cannot, the
// story is the seed's own.
func shrunkStory(fam plan.Family, seed uint64, st sim.Strategy, strategy string, opts run.CheckOptions,
	rp run.Replayed) (story, note string) {
	own := run.Story(rp.Plan, rp.Result)
	if !rp.Failed() {
		return own, "The seed passes every check: its plan and verdict."
	}
	c, r := run.RecordSeed(fam, seed, st, opts)
	if !r.Failed() {
		return own, "The seed's plan and verdict (its recorded replay passes, so it was not shrunk)."
	}
	s, err := shrink.Shrink(c, st, opts, shrink.Options{MaxRuns: reportShrinkRuns})
	if err != nil {
		return own, fmt.Sprintf("The seed's plan and verdict (not shrunk: %v).", err)
	}
	note = fmt.Sprintf("Shrunk from %s to %s in %d runs, still failing %s. "+
		"The timeline and porcupine below are of the seed itself; "+
		"simrun shrink --scenario %s --seed %d --strategy %s%s saves the shrunk run as a regression script.", s.Original.Size(), s.Case.Size(), s.Runs, s.Target,
		fam.Name, seed, strategy, mutantArg(opts.Mutant))
	if s.Exhausted {
		note += fmt.Sprintf(" The report's budget of %d runs ran out: shrink may go further.", reportShrinkRuns)
	}
	return run.Story(s.Case.Plan, s.Result), note
}

// replayReport writes replay's report: to --report, and beside --out's
// artifacts when the seed fails.
func replayReport(f replayFlags, fam plan.Family, seed uint64, st sim.Strategy, failed bool, stdout io.Writer) error {
	var paths []string
	if f.reportPath != "" {
		paths = append(paths, f.reportPath)
	}
	if f.outDir != "" && failed {
		paths = append(paths, filepath.Join(f.outDir, ReportFile))
	}
	for _, path := range paths {
		err := writeSeedReport(path, fam, seed, st, f.strategy, run.CheckOptions{Mutant: f.mutant})
		if err != nil {
			return usagef("cannot write %s: %v", path, err)
		}
		fmt.Fprintf(stdout, "report: %s\n", path)
	}
	return nil
}

// runReport writes report.html beside a failing seed's artifacts in a
// sweep with --out; a report that cannot be written is said (the note it
// returns), not fatal.
func runReport(r run.Result, o run.CheckOptions, f runFlags) string {
	fams, err := familiesNamed(r.Family)
	st, serr := strategyNamed(f.strategy, f.pctDepth)
	if err == nil {
		err = serr
	}
	if err == nil {
		err = writeSeedReport(filepath.Join(o.ArtifactDir, ReportFile), fams[0], r.Seed, st, f.strategy, o)
	}
	if err != nil {
		return fmt.Sprintf("report of %s seed %d not written: %v\n", r.Family, r.Seed, err)
	}
	return ""
}
