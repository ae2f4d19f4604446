package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/podsim/podsim/run"
)

// summarize prints one line per failing seed (with the command that
// reproduces it) and a table per family; it returns the number of failures.
// Everything it prints is a function of the results alone, except the
// seeds/s column, printed when busy (each family's worker time) is given:
// seeds per second of one core, checks included.
func summarize(results []run.Result, strategy string, w io.Writer, busy map[string]time.Duration) int {
	type row struct {
		seeds, passed, failed int
		marks                 map[string]int
	}
	rows := map[string]*row{}
	var order []string
	failed := 0
	for _, r := range results {
		if rows[r.Family] == nil {
			rows[r.Family] = &row{marks: map[string]int{}}
			order = append(order, r.Family)
		}
		rw := rows[r.Family]
		rw.seeds++
		for _, m := range r.Marks {
			rw.marks[m]++
		}
		if !r.Failed() {
			rw.passed++
			continue
		}
		rw.failed++
		failed++
		fmt.Fprintf(w, "FAIL %s seed %d: %s\n  reproduce: %s\n", r.Family, r.Seed, failureMessage(r), reproduce(r.Family, r.Seed, strategy, r.Mutant))
	}
	header := fmt.Sprintf("%-32s %8s %8s %8s", "family", "seeds", "passed", "failed")
	if busy != nil {
		header += fmt.Sprintf(" %13s", "seeds/s/core")
	}
	fmt.Fprintln(w, header)
	for _, name := range order {
		rw := rows[name]
		line := fmt.Sprintf("%-32s %8d %8d %8d", name, rw.seeds, rw.passed, rw.failed)
		if d := busy[name]; busy != nil && d > 0 {
			line += fmt.Sprintf(" %13.0f", float64(rw.seeds)/d.Seconds())
		}
		fmt.Fprintln(w, line)
	}
	fmt.Fprintln(w, "\ncoverage marks (seeds that reached each situation):")
	for _, name := range order {
		fmt.Fprintf(w, "  %s: %s\n", name, formatMarks(rows[name].marks))
	}
	return failed
}

// formatMarks lists marks by name with their counts.
func formatMarks(marks map[string]int) string {
	names := make([]string, 0, len(marks))
	for m := range marks {
		names = append(names, m)
	}
	slices.Sort(names)
	parts := make([]string, len(names))
	for i, m := range names {
		parts[i] = fmt.Sprintf("%s %d", m, marks[m])
	}
	if len(parts) == 0 {
		return "(none)"
	}
	return strings.Join(parts, ", ")
}

func failureMessage(r run.Result) string {
	if r.Err != nil {
		return r.Err.Error()
	}
	return r.Violations[0].String()
}

// recheck re-runs every failing seed and compares its trace with the
// first run's (traces[i] is results[i]'s, kept for failing seeds): a
// failure that does not reproduce is itself a failure (nondeterminism),
// reported with the first record at which the two runs part. With --out
// the re-run writes the seed's artifacts: the oracles' (porcupine HTML,
// witness), the canonical trace and a verdict listing every violation. It
// returns the number of nondeterministic seeds.
func recheck(results []run.Result, traces []string, rerun func(run.Result, run.CheckOptions) run.Replayed,
	opts run.CheckOptions, f runFlags, w io.Writer) int {
	nondeterministic := 0
	for i, r := range results {
		if !r.Failed() {
			continue
		}
		o := opts
		o.Reproduce = reproduce(r.Family, r.Seed, f.strategy, r.Mutant)
		if f.outDir != "" {
			o.ArtifactDir = filepath.Join(f.outDir, r.Family, fmt.Sprintf("seed-%d", r.Seed))
		}
		rp := rerun(r, o)
		if rp.TraceSHA != r.TraceSHA {
			nondeterministic++
			d, _ := firstDivergence(traceLines(traces[i]), traceLines(rp.Trace))
			fmt.Fprintf(w, "NONDETERMINISM %s seed %d: trace %s, then %s on re-run\n  %s\n  reproduce: %s\n",
				r.Family, r.Seed, r.TraceSHA, rp.TraceSHA, d, o.Reproduce)
		}
		if o.ArtifactDir != "" {
			if err := writeSeedArtifacts(o.ArtifactDir, rp, o.Reproduce); err != nil {
				fmt.Fprintf(w, "artifacts of %s seed %d not written: %v\n", r.Family, r.Seed, err)
			}
			runReport(r, o, f, w)
		}
	}
	return nondeterministic
}

// writeSeedArtifacts writes the verdict, the plan, the trace and the
// timeline of one failing seed.
func writeSeedArtifacts(dir string, rp run.Replayed, reproduceCmd string) error {
	r := rp.Result
	if err := os.MkdirAll(dir, 0o755); err != nil {
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
	for name, data := range map[string][]byte{"verdict.txt": []byte(b.String()), "trace.txt": []byte(rp.Trace),
		"timeline.json": rp.Timeline} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// jsonResult is one seed in the --json file.
type jsonResult struct {
	Scenario    string `json:"scenario"`
	Seed        uint64 `json:"seed"`
	Strategy    string `json:"strategy"`
	Mutant      string `json:"mutant,omitempty"`
	Verdict     string `json:"verdict"`
	FailureKind string `json:"failure_kind,omitempty"`
	Message     string `json:"message,omitempty"`
	TraceSHA256 string `json:"trace_sha256"`
	Steps       int64  `json:"steps"`
	VirtualTime string `json:"virtual_time"`
}

// checkWritable fails early, before any work, when path cannot be written.
func checkWritable(path string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".simrun-check-*")
	if err != nil {
		return usagef("cannot write %s: %v", path, err)
	}
	tmp.Close()
	return os.Remove(tmp.Name())
}

// writeJSON writes the results of a run.
func writeJSON(path string, results []run.Result, strategy string) error {
	out := make([]jsonResult, len(results))
	for i, r := range results {
		j := jsonResult{Scenario: r.Family, Seed: r.Seed, Strategy: strategy, Mutant: r.Mutant, Verdict: "pass",
			TraceSHA256: r.TraceSHA, Steps: r.Steps, VirtualTime: r.Elapsed.String()}
		if r.Failed() {
			j.Verdict, j.Message = "fail", failureMessage(r)
			j.FailureKind = "scheduler"
			if r.Err == nil {
				j.FailureKind = r.Violations[0].Oracle
			}
		}
		out[i] = j
	}
	return writeResults(path, out)
}

// writeResults writes a results file atomically: a temporary file, then
// rename, so a reader never sees half a file.
func writeResults(path string, out []jsonResult) error {
	data, err := json.MarshalIndent(map[string]any{"results": out}, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".simrun-*.json")
	if err != nil {
		return usagef("cannot write %s: %v", path, err)
	}
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return usagef("cannot write %s: %v", path, err)
	}
	tmp.Close()
	return os.Rename(tmp.Name(), path)
}
