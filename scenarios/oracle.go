package scenarios

import (
	"fmt"
	"time"
)

// Violation is one thing an oracle found wrong with a run.
type Violation struct {
	Oracle    string // "workers", "linearizability", "safety", "liveness"
	Invariant string // "S3", "L1", "internal", ...
	Message   string // names the pod, its state and what did or did not happen
	At        time.Duration
	Seq       int64 // the event it was found at, 0 at the end of the run
}

func (v Violation) String() string {
	return fmt.Sprintf("%s %s at %v: %s", v.Oracle, v.Invariant, v.At, v.Message)
}

// Oracle judges a run: it watches the event stream and gives its verdict
// when the run is over (runErr is the scheduler's error, if the run did not
// end normally). Layers of DESIGN.md "Oracles": the workers' own
// invariants (always on, in World), step invariants (safety), the
// linearizability check, liveness.
type Oracle interface {
	Observer
	Finish(w *World, runErr error) []Violation
}

// CheckOptions tune the oracles of a run.
type CheckOptions struct {
	// ForcePorcupine runs porcupine's search on every history instead of
	// only when the witness replay fails.
	ForcePorcupine bool
	// PorcupineTimeout bounds porcupine's search; a timeout is reported as
	// "unknown", never as a pass. 0 means DefaultPorcupineTimeout; a
	// negative value means no bound.
	PorcupineTimeout time.Duration
	// ArtifactDir, if set, is where an oracle that finds a violation writes
	// what a human needs to see it (the linearizability oracle: porcupine's
	// HTML, the canonical trace, the witness order and a one-line verdict).
	// Files are named after the oracle (trace.txt, the scheduler's trace, is
	// the same whoever writes it) and hold no timestamps, so a replay writes
	// the same bytes. Empty: nothing is written.
	ArtifactDir string
	// Reproduce is the command that replays this run (e.g. simrun's
	// "go run ./cmd/simrun replay --scenario swarm --seed 17 --strategy
	// random"), for the verdict line; the oracles cannot know the seed.
	Reproduce string
	// Mutant names a catalogued bug (BUGS.md id, e.g. "B2") to re-introduce
	// for this run; "" runs the correct code. See Mutants().
	Mutant string
}

// oracleFactories are the oracles every run gets, each in its own file.
func defaultOracles(opts CheckOptions) []Oracle {
	var out []Oracle
	for _, make := range []func(CheckOptions) Oracle{newLinearizability, newSafety, newLiveness} {
		if o := make(opts); o != nil {
			out = append(out, o)
		}
	}
	return out
}
