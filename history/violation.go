package history

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
