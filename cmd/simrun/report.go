package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/podsim/podsim/cmd/simrun/internal/tracetext"
	"github.com/podsim/podsim/run"
)

// rerunFunc re-runs a result's seed with options o (the sweep's strategy).
type rerunFunc func(r run.Result, o run.CheckOptions) run.Replayed

// recheck re-runs a failing seed and compares its trace with the first
// run's (trace): a failure that does not reproduce is itself a failure
// (nondeterminism), reported with the first record at which the two runs
// part. With --out the re-run writes the seed's artifacts: the oracles'
// (porcupine HTML, witness), the canonical trace, the timeline and a
// verdict listing every violation. It returns the lines to print (none
// when the seed reproduces and its artifacts were written). It runs in
// the worker that ran the seed, so the sweep keeps no failing trace.
func recheck(r run.Result, trace string, rerun rerunFunc, opts run.CheckOptions, f runFlags) []string {
	var notes []string
	o := opts
	o.Reproduce = reproduceResult(r, strategyArg(f.strategy, f.pctDepth)) + observableArg(r.ObservableOnly)
	if f.outDir != "" {
		o.ArtifactDir = seedArtifactDir(f.outDir, r.Family, r.Seed)
	}
	rp := rerun(r, o)
	if rp.TraceSHA != r.TraceSHA {
		d, _ := firstDivergence(tracetext.Lines(trace), tracetext.Lines(rp.Trace))
		notes = append(notes, fmt.Sprintf("NONDETERMINISM %s seed %d: trace %s, then %s on re-run\n  %s\n  reproduce: %s\n",
			r.Family, r.Seed, r.TraceSHA, rp.TraceSHA, d, o.Reproduce))
	}
	if o.ArtifactDir != "" {
		if err := writeSeedArtifacts(o.ArtifactDir, rp, o.Reproduce); err != nil {
			notes = append(notes, fmt.Sprintf("artifacts of %s seed %d not written: %v\n", r.Family, r.Seed, err))
		}
		if note := runReport(r, o, f); note != "" {
			notes = append(notes, note)
		}
	}
	return notes
}

// seedArtifactDir is where --out puts one failing seed's artifacts.
func seedArtifactDir(outDir, family string, seed uint64) string {
	return filepath.Join(outDir, family, fmt.Sprintf("seed-%d", seed))
}

// writeSeedArtifacts writes the verdict, the plan, the trace and the
// timeline (virtual time, one track per goroutine) of one seed: what
// run --out writes for each failing seed and replay --out for its seed.
func writeSeedArtifacts(dir string, rp run.Replayed, reproduceCmd string) error {
	r := rp.Result
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s\ntrace sha256 %s\nreproduce: %s\n", r, r.TraceSHA, reproduceCmd)
	if r.Err != nil {
		fmt.Fprintf(&b, "scheduler: %v\n", r.Err)
	}
	for _, v := range r.Violations {
		fmt.Fprintf(&b, "%s\n", v)
	}
	fmt.Fprintf(&b, "\n%s\n", rp.Plan)
	files := []struct {
		name string
		data []byte
	}{{"verdict.txt", []byte(b.String())}, {"trace.txt", []byte(rp.Trace)}, {"timeline.json", tracetext.Chrome(rp.Trace)}}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(dir, f.name), f.data, 0o666); err != nil {
			return err
		}
	}
	return nil
}
