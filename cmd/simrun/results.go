package main

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"

	"github.com/podsim/podsim/cmd/simrun/internal/outfile"
	"github.com/podsim/podsim/run"
)

// The --json results file is JSON Lines, written as the sweep goes:
//
//	{"record":"run","tool":"simrun","version":…,"commit":…,"command":"run","args":[…],"flags":{…},"started":…}
//	{"scenario":"swarm","seed":0,"strategy":"random","verdict":"pass",…}     one line per seed, in seed order
//	…
//	{"record":"end","finished":…,"interrupted":false,"results":N,"failed":F,"planned":P}
//
// Only the run and end records carry wall-clock times and the build; the
// per-seed lines are a function of (scenario, seed, strategy, mutant) and
// have no "record" key (scripts/pinresults keeps the lines with a "seed").
// Every line is flushed whole, and the end record is written on every
// exit but a kill -9, so a file without one was cut short. merge reads
// one or more such segments per input (`cat shard*.json | simrun merge -`).

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
	// Input is the token that replays a guided run (replay --input).
	Input string `json:"input,omitempty"`
	// Tuples and Transitions are the abstract states the run passed
	// through and the steps between them (indices into Tuples), see
	// packages oracle/coverage and (a virtual-kubelet family's) oracle/vkcoverage.
	Tuples      []string `json:"tuples,omitempty"`
	Transitions [][2]int `json:"transitions,omitempty"`
}

// runRecord opens a segment: who wrote it, how, and when it began.
type runRecord struct {
	Record string `json:"record"` // "run"
	Tool   string `json:"tool"`   // "simrun"
	buildInfo
	Command string            `json:"command"` // run or merge
	Args    []string          `json:"args"`
	Flags   map[string]string `json:"flags,omitempty"`
	Started string            `json:"started"`
}

// endRecord closes a segment.
type endRecord struct {
	Record      string `json:"record"` // "end"
	Finished    string `json:"finished"`
	Interrupted bool   `json:"interrupted"`
	Results     uint64 `json:"results"`
	Failed      uint64 `json:"failed"`
	Planned     uint64 `json:"planned"` // results the command set out to write
}

// toJSON is the per-seed line of a result.
func toJSON(r run.Result, strategy string) jsonResult {
	j := jsonResult{Scenario: r.Family, Seed: r.Seed, Strategy: cmp.Or(r.Strategy, strategy), Mutant: r.Mutant, Verdict: "pass",
		TraceSHA256: r.TraceSHA, Steps: r.Steps, VirtualTime: r.Elapsed.String(),
		Input: r.Input, Tuples: r.Coverage.Tuples, Transitions: r.Coverage.Transitions}
	if r.Failed() {
		j.Verdict, j.Message = "fail", failureMessage(r)
		j.FailureKind = "scheduler"
		if r.Err == nil {
			j.FailureKind = r.Violations[0].Oracle
		}
	}
	return j
}

// resultsFile writes a results file line by line. It is not safe for
// concurrent use (sink serialises it).
type resultsFile struct {
	path      string
	f         io.Closer // nil for stdout
	w         *bufio.Writer
	n, failed uint64
	err       error // the first write error
}

// openResults creates path, or writes to stdout if path is "-".
func openResults(path string, stdout io.Writer, run runRecord) (*resultsFile, error) {
	if path == "-" {
		rf := &resultsFile{path: "stdout", w: bufio.NewWriterSize(stdout, 64<<10)}
		return rf, rf.start(run)
	}
	f, err := outfile.Create(path)
	if err != nil {
		return nil, usagef("cannot write %s: %v", path, err)
	}
	rf := &resultsFile{path: path, f: f, w: bufio.NewWriterSize(f, 64<<10)}
	return rf, rf.start(run)
}

// start writes the run record.
func (rf *resultsFile) start(run runRecord) error {
	run.Record, run.Tool = "run", "simrun"
	rf.line(run)
	return rf.err
}

// line writes one record and flushes it, so the file holds whole lines.
func (rf *resultsFile) line(v any) {
	if rf.err != nil {
		return
	}
	data, err := json.Marshal(v)
	if err == nil {
		rf.w.Write(append(data, '\n'))
		err = rf.w.Flush()
	}
	if err != nil {
		rf.err = usagef("cannot write %s: %v", rf.path, err)
	}
}

func (rf *resultsFile) add(j jsonResult) {
	rf.n++
	if j.Verdict == "fail" {
		rf.failed++
	}
	rf.line(j)
}

// close writes the end record and closes the file.
func (rf *resultsFile) close(end endRecord) error {
	end.Record, end.Results, end.Failed = "end", rf.n, rf.failed
	rf.line(end)
	if rf.f == nil {
		return rf.err
	}
	if err := rf.f.Close(); err != nil && rf.err == nil {
		rf.err = usagef("cannot write %s: %v", rf.path, err)
	}
	return rf.err
}

// segment is one run…end stretch of a results file.
type segment struct {
	run     runRecord
	end     endRecord
	results []jsonResult
}

// parseResults decodes a results file strictly: every line a run record,
// a per-seed result or an end record, in that grammar (run, results, end;
// repeated for concatenated files); unknown fields, a missing end record
// (a file cut short), a count that disagrees with the lines and
// implausible values are errors, so a truncated or hand-edited file is
// rejected, not half-read.
func parseResults(data []byte) ([]segment, error) { return scanResults(bytes.NewReader(data)) }

// scanResults is parseResults reading line by line: merge holds the
// results, not the files.
func scanResults(in io.Reader) ([]segment, error) {
	var segs []segment
	open := false
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), maxResultLine)
	for n := 1; sc.Scan(); n++ {
		line := sc.Bytes()
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var probe struct{ Record *string }
		if err := json.Unmarshal(line, &probe); err != nil {
			return nil, fmt.Errorf("not a simrun results file: line %d: %v", n, err)
		}
		switch {
		case probe.Record == nil && open:
			r, err := parseResultLine(line)
			if err != nil {
				return nil, fmt.Errorf("line %d: %v", n, err)
			}
			segs[len(segs)-1].results = append(segs[len(segs)-1].results, r)
		case probe.Record != nil && *probe.Record == "run" && !open:
			var run runRecord
			if err := strictJSON(line, &run); err != nil {
				return nil, fmt.Errorf("not a simrun results file: line %d: %v", n, err)
			}
			segs, open = append(segs, segment{run: run}), true
		case probe.Record != nil && *probe.Record == "end" && open:
			s := &segs[len(segs)-1]
			if err := strictJSON(line, &s.end); err != nil {
				return nil, fmt.Errorf("not a simrun results file: line %d: %v", n, err)
			}
			if s.end.Results != uint64(len(s.results)) {
				return nil, fmt.Errorf("line %d: the end record counts %d results, the file has %d", n, s.end.Results, len(s.results))
			}
			open = false
		default:
			return nil, fmt.Errorf("not a simrun results file: line %d: want a run record, then results, then an end record", n)
		}
	}
	switch {
	case sc.Err() != nil:
		return nil, fmt.Errorf("not a simrun results file: %v", sc.Err())
	case open:
		return nil, fmt.Errorf("truncated results file: no end record (was the run killed?)")
	case len(segs) == 0:
		return nil, fmt.Errorf("not a simrun results file: no run record")
	}
	return segs, nil
}

func parseResultLine(line []byte) (jsonResult, error) {
	var r jsonResult
	if err := strictJSON(line, &r); err != nil {
		return r, err
	}
	if r.Scenario == "" || r.Strategy == "" || (r.Verdict != "pass" && r.Verdict != "fail") || len(r.TraceSHA256) != 64 {
		return r, fmt.Errorf("want a scenario, a strategy, verdict pass or fail, and a 64-digit trace hash")
	}
	if _, err := familiesNamed(r.Scenario); err != nil || r.Scenario == "all" {
		return r, fmt.Errorf("unknown scenario %q", r.Scenario)
	}
	return r, nil
}

// maxResultLine bounds a line of a results file (a result's message is a
// violation's text: far shorter).
const maxResultLine = 16 << 20

// strictJSON decodes one JSON value with no unknown fields and nothing after.
func strictJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if len(bytes.TrimSpace(data[dec.InputOffset():])) != 0 {
		return fmt.Errorf("data after the record")
	}
	return nil
}
