package main

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/podsim/podsim/cmd/simrun/internal/outfile"
	"github.com/spf13/cobra"
)

func newMergeCmd(stdout io.Writer) *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "merge FILE...",
		Short: "Merge sharded --json results into one",
		Long: "merge reads the --json files of the shards of one run (- reads stdin: concatenated files,\n" +
			"such as shards' `run --json -` output), checks each strictly, and writes their union sorted by\n" +
			"scenario, seed, strategy and mutant; a result present twice must agree field for field. It holds\n" +
			"the results in memory (measured: 109 MB max RSS for 70,097 results, about 1.5 KB each).\n" +
			"Exit 1 if any seed failed or an input run was interrupted\n" +
			"(its results are partial), 2 for a missing, corrupt or truncated file, an unknown scenario,\n" +
			"a disagreement, or no results at all.",
		Example: "  simrun merge shard0.json shard1.json shard2.json --json all.json\n  cat shard*.json | simrun merge -",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("merge needs at least one results file (- for stdin)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, files []string) error {
			if out != "" && out != "-" {
				if err := outfile.CheckFile("--json", out); err != nil {
					return err
				}
			}
			return runMerge(cmd, files, out, stdout)
		},
	}
	cmd.Flags().StringVar(&out, "json", "", "write the merged results to this file (- for stdout; the summary then goes to stderr)")
	return cmd
}

func runMerge(cmd *cobra.Command, files []string, out string, stdout io.Writer) error {
	merged, interrupted, err := mergeFiles(files)
	if err != nil {
		return err
	}
	results := stdout
	if out == "-" { // stdout is the results: the summary goes to stderr
		stdout = cmd.ErrOrStderr()
	}
	var failed uint64
	for _, r := range merged {
		if r.Verdict == "fail" {
			failed++
			if failed <= maxListed {
				fmt.Fprintf(stdout, "FAIL %s seed %d: %s\n", r.Scenario, r.Seed, r.Message)
			}
		}
	}
	fmt.Fprintf(stdout, "%d results from %d files, %d failed\n", len(merged), len(files), failed)
	if interrupted > 0 {
		fmt.Fprintf(stdout, "INCOMPLETE: %d input runs were interrupted: the results are partial\n", interrupted)
	}
	if out != "" {
		rf, err := openResults(out, results, runMeta("merge", osArgs(), cmd.Flags()))
		if err != nil {
			return err
		}
		for _, r := range merged {
			rf.add(r)
		}
		end := endRecord{Finished: nowStamp(), Interrupted: interrupted > 0, Planned: uint64(len(merged))}
		if err := rf.close(end); err != nil {
			return err
		}
	}
	if failed > 0 || interrupted > 0 {
		return errChecksFailed
	}
	return nil
}

// resultKey is what identifies a result: the same key in two files must
// be the same run.
type resultKey struct {
	scenario         string
	seed             uint64
	strategy, mutant string
}

func keyOf(r jsonResult) resultKey { return resultKey{r.Scenario, r.Seed, r.Strategy, r.Mutant} }

// mergeFiles reads every file and returns the union of their results,
// sorted, and how many of their runs were interrupted.
func mergeFiles(files []string) ([]jsonResult, int, error) {
	seen := map[resultKey]jsonResult{} // looked up, never ranged over
	var merged []jsonResult
	interrupted := 0
	for _, f := range files {
		segs, err := readResultsFile(f)
		if err != nil {
			return nil, 0, err
		}
		for _, s := range segs {
			if s.end.Interrupted {
				interrupted++
			}
			for _, r := range s.results {
				prev, dup := seen[keyOf(r)]
				if !dup {
					seen[keyOf(r)] = r
					merged = append(merged, r)
					continue
				}
				if field := differingField(prev, r); field != "" {
					return nil, 0, usagef("%s: %s seed %d (%s%s) disagrees with an earlier file on %s", f, r.Scenario, r.Seed,
						r.Strategy, mutantArg(r.Mutant), field)
				}
			}
		}
	}
	if len(merged) == 0 {
		return nil, 0, usagef("no results in %d files: nothing to merge", len(files))
	}
	slices.SortFunc(merged, func(a, b jsonResult) int {
		return cmp.Or(cmp.Compare(a.Scenario, b.Scenario), cmp.Compare(a.Seed, b.Seed),
			cmp.Compare(a.Strategy, b.Strategy), cmp.Compare(a.Mutant, b.Mutant))
	})
	return merged, interrupted, nil
}

// differingField names the first field (by its JSON name) in which two
// results of one key differ, with both values; "" if they agree.
func differingField(a, b jsonResult) string {
	fields := []struct {
		name string
		a, b any
	}{
		{"verdict", a.Verdict, b.Verdict}, {"failure_kind", a.FailureKind, b.FailureKind},
		{"message", a.Message, b.Message}, {"trace_sha256", a.TraceSHA256, b.TraceSHA256},
		{"steps", a.Steps, b.Steps}, {"virtual_time", a.VirtualTime, b.VirtualTime},
	}
	for _, f := range fields {
		if f.a != f.b {
			return fmt.Sprintf("%s (%q here, %q before)", f.name, fmt.Sprint(f.b), fmt.Sprint(f.a))
		}
	}
	return ""
}

// readResultsFile reads and parses one input (- is stdin).
func readResultsFile(f string) ([]segment, error) {
	in := io.Reader(os.Stdin)
	if f != "-" {
		file, err := os.Open(f)
		if err != nil {
			return nil, usagef("cannot read %s: %v", f, err)
		}
		defer file.Close()
		in = file
	}
	segs, err := scanResults(in)
	if err != nil {
		return nil, usagef("%s: %v", f, err)
	}
	return segs, nil
}
