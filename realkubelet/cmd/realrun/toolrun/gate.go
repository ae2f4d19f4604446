package toolrun

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The gate sweep's lines on stderr (realdriver's TestGateSweep with
// -gate.progress N and -gate.beats), all beats:
//
//	gate: run FAMILY MODE seed S                  a seed's run starts
//	gate: run FAMILY MODE run N input TOKEN       a guided run starts (N its index in the loop)
//	gate: ran FAMILY MODE seed S                  a run ended (run N for a guided run's)
//	gate: D of T runs, F with findings (last: …)  every N runs and the last: a run ended

// GateBeat is the gate sweep's Beat: every "gate: " line. Its progress
// lines (the "D of T" ones) go to log as well.
func GateBeat(log func(progress string)) func(line string) bool {
	return func(line string) bool {
		rest, ok := strings.CutPrefix(line, "gate: ")
		if ok && !strings.HasPrefix(rest, "run ") && !strings.HasPrefix(rest, "ran ") {
			log(rest)
		}
		return ok
	}
}

// Died is a gate sweep that did not complete: its binary died, or one of
// its runs did not end within the hang bound.
type Died struct {
	Side string // what was swept, for the message
	Out  Outcome
	Hang time.Duration
}

// Run is one run of a gate sweep: a seed's, or (Input set) a guided
// run's, Index then its index in the loop.
type Run struct {
	Family, Mode string
	Index        uint64
	Input        string
}

func (r Run) String() string {
	if r.Input != "" {
		return fmt.Sprintf("%s %s run %d", r.Family, r.Mode, r.Index)
	}
	return fmt.Sprintf("%s %s seed %d", r.Family, r.Mode, r.Index)
}

func (d *Died) Error() string {
	where := ""
	if r, ok := d.Run(); ok {
		where = " (in " + r.String() + ")"
	} else if _, after, ok := strings.Cut(d.Out.Last, "(last: "); ok {
		where = " (the run after " + strings.TrimSuffix(after, ")") + ")"
	} else if after, ok := strings.CutPrefix(d.Out.Last, "gate: ran "); ok {
		where = " (the run after " + after + ")"
	}
	if d.Out.Hung {
		return fmt.Sprintf("sweep on %s: a run did not end within %s%s", d.Side, d.Hang, where)
	}
	return fmt.Sprintf("sweep on %s did not complete%s: %s", d.Side, where, d.Out.Why())
}

// Hung reports whether the sweep stopped on a run that would not end: the
// hang bound, or synctest's deadlock (every goroutine of the run blocked).
func (d *Died) Hung() bool { return d.Out.Hung || d.Out.Deadlock() }

// Run is the run the sweep died in, when its last beat named it as it
// started.
func (d *Died) Run() (Run, bool) { return ParseRun(d.Out.Last) }

// ParseRun reads a run's start beat: the gate sweep's ("gate: run …",
// above) or the mutation sweep's, the same less "gate: ".
func ParseRun(line string) (Run, bool) {
	rest, ok := strings.CutPrefix(strings.TrimPrefix(line, "gate: "), "run ")
	f := strings.Fields(rest)
	if !ok || len(f) < 4 {
		return Run{}, false
	}
	n, err := strconv.ParseUint(f[3], 10, 64)
	r := Run{Family: f[0], Mode: f[1], Index: n}
	switch {
	case err != nil:
	case f[2] == "seed" && len(f) == 4:
		return r, true
	case f[2] == "run" && len(f) == 6 && f[4] == "input":
		r.Input = f[5]
		return r, true
	}
	return Run{}, false
}
