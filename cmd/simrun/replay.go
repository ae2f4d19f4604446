package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/podsim/podsim/scenarios"
)

func newReplayCmd(stdout io.Writer) *cobra.Command {
	var scenario, seed, strategy, tracePath, timelinePath, outDir, mutant string
	var depth int
	cmd := &cobra.Command{
		Use:   "replay",
		Short: "Re-run one seed and print its verdict and trace hash",
		Long: "replay re-runs one seed of a family and prints the verdict and the SHA-256 of its canonical\n" +
			"trace: the same seed gives the same hash on any machine, at any GOMAXPROCS, with or without -race.",
		Example: "  simrun replay --scenario swarm --seed 17 --trace trace.txt --timeline timeline.json",
		Args:    cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if scenario == "" || seed == "" {
				return usagef("replay needs --scenario and --seed")
			}
			fams, err := familiesNamed(scenario)
			if err != nil || len(fams) != 1 {
				return usagef("replay needs one scenario, got %q", scenario)
			}
			s, err := parseSeed(seed)
			if err != nil {
				return err
			}
			st, err := strategyNamed(strategy, depth)
			if err != nil {
				return err
			}
			if err := checkMutant(mutant); err != nil {
				return err
			}
			rp := scenarios.ReplaySeed(fams[0], s, st, scenarios.CheckOptions{
				Reproduce: reproduce(fams[0].Name, s, strategy) + mutantArg(mutant), ArtifactDir: outDir, Mutant: mutant})
			r := rp.Result
			for path, data := range map[string][]byte{tracePath: []byte(rp.Trace), timelinePath: rp.Timeline} {
				if path == "" {
					continue
				}
				if err := os.WriteFile(path, data, 0o644); err != nil {
					return usagef("cannot write %s: %v", path, err)
				}
			}
			fmt.Fprintf(stdout, "%s\ntrace sha256 %s (%d steps, %v virtual)\n", r, r.TraceSHA, r.Steps, r.Elapsed)
			if r.Failed() {
				for _, v := range r.Violations {
					fmt.Fprintf(stdout, "  %s\n", v)
				}
				return errChecksFailed
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&scenario, "scenario", "", "scenario family")
	fl.StringVar(&seed, "seed", "", "seed to replay")
	fl.StringVar(&strategy, "strategy", "random", "scheduling strategy: random or pct")
	fl.IntVar(&depth, "pct-depth", 3, "bug depth PCT searches for")
	fl.StringVar(&tracePath, "trace", "", "write the canonical trace to this file")
	fl.StringVar(&timelinePath, "timeline", "", "write the run as Chrome trace-event JSON to this file (open it in Perfetto)")
	fl.StringVar(&mutant, "mutant", "", "re-introduce this catalogued bug (simrun list)")
	fl.StringVar(&outDir, "out", "", "if the seed fails, write the oracles' artifacts (porcupine HTML, witness) here")
	return cmd
}

func newListCmd(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List scenario families, strategies and mutants",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			fmt.Fprintln(stdout, "families:")
			for _, f := range scenarios.Families() {
				fmt.Fprintf(stdout, "  %s\n", f.Name)
			}
			fmt.Fprintln(stdout, "strategies:\n  random\n  pct (--pct-depth d)")
			printMutants(stdout)
			return nil
		},
	}
}
