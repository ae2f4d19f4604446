package main

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/podsim/podsim/cmd/simrun/internal/outfile"
	"github.com/podsim/podsim/cmd/simrun/internal/seedreport"
	"github.com/podsim/podsim/guided"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/run"
	"github.com/podsim/podsim/sim"
)

// The HTML failure report of one run (package report, built by
// internal/seedreport): replay --report FILE writes it, and replay --out /
// run --out write it as report.html beside a failing run's other
// artifacts. A seed's run and a guided run (by its input) both have one.

// ReportFile is the report's name in an --out directory.
const ReportFile = "report.html"

// seedReport is the report of a seed's run under st (strategy: its name
// as replay's argument) with opts.
func seedReport(fam plan.Family, seed uint64, st sim.Strategy, strategy string, opts run.CheckOptions) seedreport.Run {
	save := fmt.Sprintf("simrun shrink --scenario %s --seed %d --strategy %s", fam.Name, seed, strategy) +
		mutantArg(opts.Mutant) + faultPointsArg(opts.FaultPoints)
	return seedreport.Run{Title: fmt.Sprintf("%s seed %d", fam.Name, seed), Scenario: fam.Name, Seed: seed,
		Strategy: strategy, Sim: st, Opts: opts, Save: save,
		Reproduce: reproduce(fam.Name, seed, strategy, opts.Mutant) + observableArg(opts.ObservableOnly) +
			faultPointsArg(opts.FaultPoints),
		Replay: func(o run.CheckOptions) run.Replayed { return run.ReplaySeed(fam, seed, st, o) },
		Record: func(o run.CheckOptions) (run.Case, run.Result) { return run.RecordSeed(fam, seed, st, o) }}
}

// inputReport is the report of the guided run that input records.
func inputReport(fam plan.Family, in guided.Input, opts run.CheckOptions) seedreport.Run {
	token := in.Token()
	save := fmt.Sprintf("simrun shrink --scenario %s --input %s --out FILE", fam.Name, token) + mutantArg(opts.Mutant) +
		faultPointsArg(opts.FaultPoints)
	return seedreport.Run{Title: fam.Name + " guided run", Scenario: fam.Name, Input: token, Strategy: "guided",
		Sim: guided.Strategy, Opts: opts, Save: save,
		Reproduce: guidedReproduce(fam.Name, in, opts.Mutant) + observableArg(opts.ObservableOnly) +
			faultPointsArg(opts.FaultPoints),
		Replay: func(o run.CheckOptions) run.Replayed { return guided.Replay(fam, in, o) },
		Record: func(o run.CheckOptions) (run.Case, run.Result) { return guided.Case(fam, in, o) }}
}

// checkReportPath fails early, before the run, when --report cannot be
// written.
func checkReportPath(path string) error {
	if path == "" {
		return nil
	}
	return outfile.CheckFile("--report", path)
}

// replayReport writes replay's report of rr: to --report, and beside
// --out's artifacts when the run fails.
func replayReport(f replayFlags, rr seedreport.Run, failed bool, stdout io.Writer) error {
	var paths []string
	if f.reportPath != "" {
		paths = append(paths, f.reportPath)
	}
	if f.outDir != "" && failed {
		paths = append(paths, filepath.Join(f.outDir, ReportFile))
	}
	for _, path := range paths {
		if err := seedreport.Write(path, rr); err != nil {
			return usagef("cannot write %s: %v", path, err)
		}
		fmt.Fprintf(stdout, "report: %s\n", path)
	}
	return nil
}

// runReport writes report.html beside a failing run's artifacts in a
// sweep with --out; a report that cannot be written is said (the note it
// returns), not fatal. A guided run's report is of its input.
func runReport(r run.Result, o run.CheckOptions, f runFlags) string {
	o.Reproduce = ""
	fams, err := familiesNamed(r.Family)
	var st sim.Strategy
	if err == nil {
		st, err = strategyNamed(f.strategy, f.pctDepth)
	}
	var in guided.Input
	if err == nil && r.Input != "" {
		in, err = guided.ParseToken(r.Input)
	}
	if err == nil {
		rr := seedReport(fams[0], r.Seed, st, strategyArg(f.strategy, f.pctDepth), o)
		if r.Input != "" {
			rr = inputReport(fams[0], in, o)
		}
		err = seedreport.Write(filepath.Join(o.ArtifactDir, ReportFile), rr)
	}
	if err != nil {
		return fmt.Sprintf("report of %s seed %d not written: %v\n", r.Family, r.Seed, err)
	}
	return ""
}
