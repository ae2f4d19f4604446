package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/podsim/podsim/realkubelet/cmd/realrun/mutreport"
	"github.com/podsim/podsim/realkubelet/cmd/realrun/toolrun"
)

// sweepMutants runs each mutant not already decided, --parallel at a time,
// appending each outcome to mutation.jsonl as it comes (an interrupt keeps
// what is done); it returns the decided mutants in the order of todo.
func (r *mutationRun) sweepMutants(ctx context.Context, todo []mutreport.Mutant) []mutreport.Mutant {
	log, err := os.Create(filepath.Join(r.outDir, "mutation.jsonl"))
	if err != nil {
		progress("cannot keep results as they come: %v", err)
	}
	done := 0
	toolrun.Each(ctx, r.o.parallel, len(todo), func(int) bool { return true }, func(i int) {
		if todo[i].Status == "" {
			r.runOne(ctx, &todo[i])
		}
	}, func(i int) {
		done++
		if todo[i].Status != "" {
			logMutant(log, todo[i])
			progress("mutant %d/%d %s", done, len(todo), mutreport.OneLine(todo[i], len(r.t.files) > 1))
		}
	})
	if log != nil {
		log.Close()
	}
	var out []mutreport.Mutant
	for _, m := range todo {
		if m.Status != "" {
			out = append(out, m)
		}
	}
	return out
}

// logMutant appends m's outcome to mutation.jsonl (log nil: not kept).
func logMutant(log *os.File, m mutreport.Mutant) {
	if b, err := json.Marshal(m); err == nil && log != nil {
		fmt.Fprintf(log, "%s\n", b)
	}
}

// runOne runs the schema binary with mutant m on. A run that does not end
// within --hang (the binary names each run before it starts) is a hang:
// the binary is stopped and the mutant counted killed, as is one whose
// binary dies. An interrupt leaves m out (not run); a signal from outside
// realrun (the OOM killer, say) leaves it undecided, with a reason.
func (r *mutationRun) runOne(ctx context.Context, m *mutreport.Mutant) {
	t0 := time.Now()
	defer func() { m.Seconds = time.Since(t0).Seconds() }()
	verdict := filepath.Join(r.outDir, "verdicts", fmt.Sprintf("%d.json", m.Index))
	os.Remove(verdict)
	out := toolrun.Cmd{Bin: r.sd.bin, Args: append(r.sweepArgs(), "-mutant.base", r.base, "-mutant.out", verdict),
		Dir: r.t.moduleDir, Env: append(r.sd.slot.GoEnv(), "PODSIM_MUTANT="+strconv.Itoa(m.Index)),
		Hang: r.o.hang, Beat: func(l string) bool { return strings.HasPrefix(l, "run ") }}.Run(ctx)
	switch {
	case ctx.Err() != nil:
		m.Status = "" // interrupted: not decided
	case out.Signaled:
		m.Status, m.Reason = mutreport.Undecided, fmt.Sprintf("its sweep was ended from outside (%v): no verdict; run it again (--ids %d)", out.Err, m.Index)
		inRun(m, out.Last)
	case out.Hung:
		m.Status, m.Reason = mutreport.Hang, fmt.Sprintf("no run ended within %s", r.o.hang)
		inRun(m, out.Last)
	case out.Err != nil:
		m.Status, m.Reason = mutreport.Crash, out.Why()
		if out.Deadlock() {
			m.Status = mutreport.Hang // every goroutine of the run blocked for good: synctest saw the hang
		}
		inRun(m, out.Last)
	default:
		if err := verdictOf(verdict, m); err != nil {
			m.Status, m.Reason = mutreport.Crash, err.Error()
		}
	}
}

// inRun notes the run a hang or crash happened in, from the sweep's last
// start beat ("run FAMILY MODE seed S", toolrun.ParseRun).
func inRun(m *mutreport.Mutant, line string) {
	if r, ok := toolrun.ParseRun(line); ok {
		at(m, r)
	}
}

// at names the run m was decided in: a seed's, or a guided run's by its
// index in the loop and its input.
func at(m *mutreport.Mutant, r toolrun.Run) {
	m.Family, m.Mode, m.Seed, m.Input = r.Family, r.Mode, r.Index, r.Input
}
