package main

import (
	"fmt"
	"io"
	"os"
	"sort"
	"sync"
	"time"

	"github.com/podsim/podsim/cmd/simrun/internal/junit"
	"github.com/podsim/podsim/run"
	"github.com/spf13/pflag"
)

// sink is where a sweep's results go as they complete: the --json and
// --junit files. Its lock serialises the collector's writes with an
// abort on a second Ctrl-C, so the files are whole whenever the process
// ends; after finish, add does nothing.
type sink struct {
	mu       sync.Mutex
	json     *resultsFile
	junit    *junit.Writer
	strategy string // the results' strategy field
	repro    string // the strategy in reproduce commands (strategyArg)
	run      runRecord
	planned  uint64
	finished bool
	err      error
}

// runMeta is the run record of a command: build, arguments, every flag's
// value (sorted by name) and the start time (the one wall-clock field,
// with the end record's).
func runMeta(command string, args []string, flags *pflag.FlagSet) runRecord {
	m := runRecord{buildInfo: readBuildInfo(), Command: command, Args: args, Flags: map[string]string{},
		Started: nowStamp()}
	if flags != nil {
		flags.VisitAll(func(f *pflag.Flag) {
			if f.Name != "help" {
				m.Flags[f.Name] = f.Value.String()
			}
		})
	}
	return m
}

// openSink creates the output files (their paths were checked).
func openSink(jsonPath, junitPath, strategy, repro string, stdout io.Writer, run runRecord, planned uint64) (*sink, error) {
	s := &sink{strategy: strategy, repro: repro, run: run, planned: planned}
	var err error
	if jsonPath != "" {
		if s.json, err = openResults(jsonPath, stdout, run); err != nil {
			return nil, err
		}
	}
	if junitPath != "" {
		if s.junit, err = junit.Open(junitPath); err != nil {
			if s.json != nil && s.json.f != nil { // nothing is written on bad input
				s.json.f.Close()
				os.Remove(jsonPath)
			}
			return nil, err
		}
	}
	return s, nil
}

// add records one seed's result; false once a file cannot be written
// (the disk is full): the sweep then stops.
func (s *sink) add(r run.Result, took time.Duration) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.finished {
		return true
	}
	ok := true
	if s.json != nil {
		s.json.add(toJSON(r, s.strategy))
		ok = s.json.err == nil
	}
	if s.junit != nil {
		suite, c := junitCase(r, s.repro)
		s.junit.Add(suite, c, took)
		ok = ok && s.junit.Err() == nil
	}
	return ok
}

// finish writes the end of every file (idempotent) and returns the first
// write error.
func (s *sink) finish(interrupted bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.finished {
		return s.err
	}
	s.finished = true
	end := endRecord{Finished: nowStamp(), Interrupted: interrupted, Planned: s.planned}
	if s.json != nil {
		s.err = s.json.close(end)
	}
	if s.junit != nil {
		if err := s.junit.Close(junitProps(s.run, end)); s.err == nil {
			s.err = err
		}
	}
	return s.err
}

// junitCase is one seed's JUnit test case and its family's suite; a
// failure's body is the command that replays it.
func junitCase(r run.Result, strategy string) (suite string, c junit.Case) {
	c = junit.Case{Name: fmt.Sprintf("seed %d", r.Seed), Classname: "podsim." + r.Family}
	if r.Failed() {
		msg := failureMessage(r)
		c.Failure = &junit.Failure{Message: msg, Body: msg + "\nreproduce: " + reproduceResult(r, strategy) + observableArg(r.ObservableOnly)}
	}
	return "podsim/" + r.Family, c
}

// junitProps is the metadata of a run as JUnit properties.
func junitProps(run runRecord, end endRecord) []junit.Property {
	prop := func(name, value string) junit.Property { return junit.Property{Name: name, Value: value} }
	props := []junit.Property{prop("simrun.version", run.Version), prop("simrun.commit", run.Commit), prop("simrun.go", run.Go),
		prop("simrun.started", run.Started), prop("simrun.finished", end.Finished), prop("simrun.interrupted", fmt.Sprint(end.Interrupted))}
	names := make([]string, 0, len(run.Flags))
	for n := range run.Flags {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		props = append(props, prop("flag."+n, run.Flags[n]))
	}
	return props
}

// nowStamp is the wall-clock time of a run or end record (never in a
// per-seed result).
func nowStamp() string { return time.Now().UTC().Format(time.RFC3339) }
