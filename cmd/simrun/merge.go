package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/spf13/cobra"
)

func newMergeCmd(stdout io.Writer) *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "merge FILE...",
		Short: "Merge sharded --json results into one",
		Long: "merge reads the --json files of the shards of one run, checks each strictly, and writes\n" +
			"their union sorted by scenario and seed; a seed present twice must agree. Exit 1 if any\n" +
			"seed failed, 2 for a missing, corrupt or truncated file or a conflict.",
		Example: "  simrun merge shard0.json shard1.json shard2.json --json all.json",
		Args:    cobra.MinimumNArgs(1),
		RunE: func(_ *cobra.Command, files []string) error {
			if out != "" {
				if err := checkWritable(out); err != nil {
					return err
				}
			}
			merged, err := mergeFiles(files)
			if err != nil {
				return err
			}
			failed := 0
			for _, r := range merged {
				if r.Verdict == "fail" {
					failed++
					fmt.Fprintf(stdout, "FAIL %s seed %d: %s\n", r.Scenario, r.Seed, r.Message)
				}
			}
			fmt.Fprintf(stdout, "%d results from %d files, %d failed\n", len(merged), len(files), failed)
			if out != "" {
				if err := writeResults(out, merged); err != nil {
					return err
				}
			}
			if failed > 0 {
				return errChecksFailed
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "json", "", "write the merged results to this file")
	return cmd
}

func mergeFiles(files []string) ([]jsonResult, error) {
	seen := map[string]jsonResult{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, usagef("cannot read %s: %v", f, err)
		}
		results, err := parseResults(data)
		if err != nil {
			return nil, usagef("%s: %v", f, err)
		}
		for _, r := range results {
			key := fmt.Sprintf("%s/%d", r.Scenario, r.Seed)
			if prev, dup := seen[key]; dup && prev != r {
				return nil, usagef("%s: seed %s disagrees with an earlier file (trace %s vs %s)", f, key, r.TraceSHA256, prev.TraceSHA256)
			}
			seen[key] = r
		}
	}
	merged := make([]jsonResult, 0, len(seen))
	for _, r := range seen {
		merged = append(merged, r)
	}
	slices.SortFunc(merged, func(a, b jsonResult) int {
		return cmp.Or(cmp.Compare(a.Scenario, b.Scenario), cmp.Compare(a.Seed, b.Seed))
	})
	return merged, nil
}

// parseResults decodes a --json results file strictly: unknown fields,
// trailing data, a missing results list and implausible values are errors,
// so a truncated or hand-edited file is rejected, not half-read.
func parseResults(data []byte) ([]jsonResult, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var doc struct {
		Results *[]jsonResult `json:"results"`
	}
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("not a simrun results file: %v", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("not a simrun results file: data after the results")
	}
	if doc.Results == nil {
		return nil, fmt.Errorf("not a simrun results file: no results list")
	}
	for i, r := range *doc.Results {
		if r.Scenario == "" || (r.Verdict != "pass" && r.Verdict != "fail") || len(r.TraceSHA256) != 64 {
			return nil, fmt.Errorf("result %d: want a scenario, verdict pass or fail, and a 64-digit trace hash", i)
		}
	}
	return *doc.Results, nil
}
