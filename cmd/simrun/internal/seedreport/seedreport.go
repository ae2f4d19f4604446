// Package seedreport builds the HTML failure report (package report) of one
// run simrun can replay: a seed's, or a guided run's by its input. The
// report is built by running the run again, which costs milliseconds: the
// run yields the trace (the timeline) and, in a temporary artifact
// directory, porcupine's page; a bounded shrink yields the story. The same
// run gives the same bytes.
package seedreport

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/podsim/podsim/cmd/simrun/internal/outfile"
	"github.com/podsim/podsim/cmd/simrun/internal/tracetext"
	"github.com/podsim/podsim/oracle/linearize"
	"github.com/podsim/podsim/report"
	"github.com/podsim/podsim/run"
	"github.com/podsim/podsim/shrink"
	"github.com/podsim/podsim/sim"
)

// ShrinkRuns bounds the shrink behind a report's story: a story shrunk a
// long way is far easier to read than none, but a sweep with --out writes
// a report for every failing run, so each gets a fraction of shrink's
// default budget.
const ShrinkRuns = 500

// Run is the run a report is of.
type Run struct {
	Title    string // the page's heading: "update-storm seed 8"
	Scenario string
	Seed     uint64 // a seed's run; shown when Input is ""
	Input    string // a guided run's input token, "" for a seed's run
	Strategy string // the strategy as replay's --strategy argument
	// Sim is the strategy the run is made under (what shrink replays with).
	Sim sim.Strategy
	// Opts are the run's options (mutant, observable-only, fault points);
	// their Reproduce and ArtifactDir are set here.
	Opts run.CheckOptions
	// Reproduce is the command that replays the run; Save the simrun
	// shrink command that saves it as a regression script.
	Reproduce, Save string
	// Replay makes the run; Record makes it with its choices recorded, as
	// a case to shrink.
	Replay func(run.CheckOptions) run.Replayed
	Record func(run.CheckOptions) (run.Case, run.Result)
}

// Write runs r again and writes its report to path, creating its
// directory.
func Write(path string, r Run) error {
	page, err := Page(r)
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

// Page runs r with the oracles' artifacts in a temporary directory (for
// porcupine's page), shrinks it, and fills the page.
func Page(r Run) (report.Page, error) {
	tmp, err := os.MkdirTemp("", "simrun-report-*")
	if err != nil {
		return report.Page{}, err
	}
	defer os.RemoveAll(tmp)
	opts := r.Opts
	opts.Reproduce, opts.ArtifactDir = r.Reproduce, tmp
	rp := r.Replay(opts)
	res := rp.Result
	p := report.Page{Title: r.Title, Scenario: r.Scenario, Seed: r.Seed, Input: r.Input,
		Strategy: r.Strategy, Mutant: opts.Mutant, Reproduce: opts.Reproduce, Failed: res.Failed(), Verdict: res.String(),
		Plan: rp.Plan.String(), Timeline: tracetext.Timeline(rp.Trace, res.Elapsed)}
	p.Facts = []report.Fact{{Name: "virtual time", Value: res.Elapsed.String()},
		{Name: "steps", Value: fmt.Sprint(res.Steps)}, {Name: "trace sha256", Value: res.TraceSHA},
		{Name: "coverage marks", Value: strings.Join(res.Marks, ", ")}}
	if res.FaultPointsArmed {
		p.Facts = append(p.Facts, report.Fact{Name: "fault points on", Value: cmp.Or(strings.Join(res.FaultPoints, ", "), "none")})
	}
	p.Violations = pageViolations(res, p.Timeline)
	highlight(p.Timeline, p.Violations)
	if len(p.Violations) > 0 {
		p.Timeline.Windows = tracetext.Windows(res.Elapsed, p.Violations[0].At)
	}
	p.Porcupine, err = os.ReadFile(filepath.Join(tmp, linearize.ArtifactHTML))
	if errors.Is(err, os.ErrNotExist) {
		p.PorcupineNote = "Porcupine has no page for this " + r.noun() + ": the linearizability oracle found no violation " +
			"(it runs porcupine's search only on a history whose witness replay fails; run --force-porcupine runs it always)."
	} else if err != nil {
		return report.Page{}, err
	}
	opts.ArtifactDir, opts.Reproduce = "", ""
	p.Story, p.StoryNote = shrunkStory(r, opts, rp)
	return p, nil
}

// noun is what the page calls the run: a seed, or a (guided) run.
func (r Run) noun() string {
	if r.Input != "" {
		return "run"
	}
	return "seed"
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

// shrunkStory shrinks the run for the story to read; if it cannot, the
// story is the run's own.
func shrunkStory(r Run, opts run.CheckOptions, rp run.Replayed) (story, note string) {
	own := run.Story(rp.Plan, rp.Result)
	if !rp.Failed() {
		return own, "The " + r.noun() + " passes every check: its plan and verdict."
	}
	c, res := r.Record(opts)
	if !res.Failed() {
		return own, "The " + r.noun() + "'s plan and verdict (its recorded replay passes, so it was not shrunk)."
	}
	s, err := shrink.Shrink(c, r.Sim, opts, shrink.Options{MaxRuns: ShrinkRuns})
	if err != nil {
		return own, fmt.Sprintf("The %s's plan and verdict (not shrunk: %v).", r.noun(), err)
	}
	note = fmt.Sprintf("Shrunk from %s to %s in %d runs, still failing %s. "+
		"The timeline and porcupine below are of the %s itself; "+
		"%s saves the shrunk run as a regression script.", s.Original.Size(), s.Case.Size(), s.Runs, s.Target, r.noun(), r.Save)
	if s.Exhausted {
		note += fmt.Sprintf(" The report's budget of %d runs ran out: shrink may go further.", ShrinkRuns)
	}
	return run.Story(s.Case.Plan, s.Result), note
}
