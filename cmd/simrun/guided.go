package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/podsim/podsim/cmd/simrun/internal/outfile"
	"github.com/podsim/podsim/guided"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/run"
	"github.com/spf13/cobra"
)

// The guided strategy (--strategy guided) is a corpus loop, not a seed
// sweep: --start is the loop's seed, --seeds the runs per family, and a
// result's "seed" is the run's index in the corpus's history. A failing
// run is replayed by its input (replay --input), which the summary, the
// --json line and --junit print.

// checkGuidedFlags refuses the flags that mean nothing to a guided loop,
// and --corpus without it.
func (f runFlags) checkGuidedFlags(changed func(string) bool) error {
	if f.strategy != "guided" && f.strategy != "portfolio" {
		if changed("corpus") || changed("rerun-corpus") {
			return usagef("--corpus and --rerun-corpus apply to --strategy guided or portfolio only")
		}
		return nil
	}
	if f.rerunCorpus && f.corpus == "" {
		return usagef("--rerun-corpus needs --corpus DIR (the corpus to run again)")
	}
	for _, other := range []string{"seed", "shard"} {
		if changed(other) {
			return usagef("--%s does not apply to --strategy %s (a guided loop is sequential: give each job its own --start or --corpus; replay a run with replay --input)", other, f.strategy)
		}
	}
	if f.corpus != "" {
		return outfile.CheckDir("--corpus", f.corpus)
	}
	return nil
}

// guidedSweep runs the guided loop on each family of p in turn, resuming
// and saving each family's corpus under --corpus if set, and hands each
// outcome to emit in run order. It returns the runs made.
func guidedSweep(ctx context.Context, p sweepPlan, f runFlags, emit func(outcome)) (uint64, error) {
	opts := f.checkOptions()
	var made uint64
	for k, fam := range p.families {
		c := guided.NewCorpus(fam.Name)
		if f.corpus != "" {
			var err error
			if c, err = guided.Load(f.corpus, fam.Name); err != nil {
				return made, usagef("--corpus: %v", err)
			}
		}
		made += guided.Loop(ctx, fam, c, guided.Options{Seed: p.start, Runs: p.counts[k], Parallel: f.parallel, Check: opts,
			Replay: f.rerunCorpus},
			func(o guided.Outcome) { emit(guidedOutcome(fam, o, opts, f)) })
		if f.corpus != "" {
			if err := c.Save(f.corpus); err != nil {
				return made, usagef("cannot write --corpus %s: %v", f.corpus, err)
			}
		}
		if ctx.Err() != nil {
			break
		}
	}
	return made, nil
}

// guidedOutcome is a guided run as the sweep reports it; a failing one is
// rechecked by replaying its recorded input.
func guidedOutcome(fam plan.Family, o guided.Outcome, opts run.CheckOptions, f runFlags) outcome {
	out := outcome{res: o.Result, took: o.Took}
	if !o.Result.Failed() {
		return out
	}
	rerun := func(_ run.Result, co run.CheckOptions) run.Replayed { return guided.Replay(fam, o.Input, co) }
	began := time.Now()
	out.notes = recheck(o.Result, o.Trace, rerun, opts, f)
	out.took += time.Since(began)
	return out
}

// guidedInput reads replay's and shrink's --input: a token, as simrun
// prints it.
func guidedInput(token string) (guided.Input, error) {
	in, err := guided.ParseToken(token)
	if err != nil {
		return in, usagef("--input: %v", err)
	}
	return in, nil
}

// strategyGiven reports that replay's or shrink's --strategy or
// --pct-depth was given.
func strategyGiven(cmd *cobra.Command) bool {
	return cmd.Flags().Changed("strategy") || cmd.Flags().Changed("pct-depth")
}

// errStrategyWithInput refuses --strategy and --pct-depth with --input.
var errStrategyWithInput = usagef("--strategy and --pct-depth do not apply to --input: a guided run replays under the strategy it was made with")

// guidedReproduce is the replay command of a guided run's input.
func guidedReproduce(family string, in guided.Input, mutant string) string {
	return fmt.Sprintf("go run ./cmd/simrun replay --scenario %s --input %s", family, in.Token()) + mutantArg(mutant)
}

// runReplayInput is replay --input: the guided run the token records.
func runReplayInput(f replayFlags, stdout io.Writer) error {
	if f.scenario == "" || f.seed != "" {
		return usagef("replay --input needs --scenario and no --seed")
	}
	if f.strategyGiven {
		return errStrategyWithInput
	}
	fam, err := oneFamily("replay", f.scenario)
	if err != nil {
		return err
	}
	in, err := guidedInput(f.input)
	if err != nil {
		return err
	}
	expected, err := f.prepare()
	if err != nil {
		return err
	}
	rr := inputReport(fam, in, f.checkOptions())
	o := rr.Opts
	o.Reproduce, o.ArtifactDir = rr.Reproduce, f.outDir
	rp := guided.Replay(fam, in, o)
	if err := f.printReplay(rp, expected, o.Reproduce, stdout); err != nil {
		return err
	}
	if err := replayReport(f, rr, rp.Failed(), stdout); err != nil {
		return err
	}
	return f.replayVerdict(rp, expected, stdout)
}

// runShrinkInput is shrink --input: a guided run, recorded from its input,
// minimised like a seed's.
func runShrinkInput(f shrinkFlags, stdout, stderr io.Writer) error {
	if f.scenario == "" || f.seed != "" || f.out == "" {
		return usagef("shrink --input needs --scenario, --out and no --seed")
	}
	if f.strategyGiven {
		return errStrategyWithInput
	}
	fam, err := oneFamily("shrink", f.scenario)
	if err != nil {
		return err
	}
	in, err := guidedInput(f.input)
	if err != nil {
		return err
	}
	if err := validMutant(f.mutant); err != nil {
		return err
	}
	if f.maxRuns < 1 {
		return usagef("--max-runs %d: want at least 1", f.maxRuns)
	}
	if err := outfile.CheckFile("--out", f.out); err != nil {
		return err
	}
	if _, err := os.Stat(f.out); err == nil && !f.force {
		return usagef("%s exists: pass --force to overwrite it", f.out)
	}
	opts := f.checkOptions()
	c, r := guided.Case(fam, in, opts)
	command := fmt.Sprintf("simrun shrink --scenario %s --input %s", fam.Name, in.Token()) + f.commandTail()
	return shrinkCase(f, c, r, guided.Strategy, opts, f.out, command, stdout, stderr)
}
