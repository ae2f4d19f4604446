package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// sweepMutants runs each mutant not already decided, --parallel at a time,
// appending each outcome to mutation.jsonl as it comes (an interrupt keeps
// what is done); it returns the decided mutants in the order of todo.
func (r *mutationRun) sweepMutants(ctx context.Context, todo []realMutant) []realMutant {
	log, err := os.Create(filepath.Join(r.outDir, "mutation.jsonl"))
	if err != nil {
		progress("cannot keep results as they come: %v", err)
	}
	var mu sync.Mutex
	done := 0
	next := make(chan int)
	var wg sync.WaitGroup
	for range r.o.parallel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if todo[i].Status == "" {
					r.runOne(ctx, &todo[i])
				}
				mu.Lock()
				done++
				if todo[i].Status != "" {
					if log != nil {
						b, _ := json.Marshal(todo[i])
						fmt.Fprintf(log, "%s\n", b)
					}
					progress("mutant %d/%d %s", done, len(todo), oneLine(todo[i], len(r.t.files) > 1))
				}
				mu.Unlock()
			}
		}()
	}
	for i := range todo {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if log != nil {
		log.Close()
	}
	var out []realMutant
	for _, m := range todo {
		if m.Status != "" {
			out = append(out, m)
		}
	}
	return out
}

// runOne runs the schema binary with mutant m on. A run that does not end
// within --hang (the binary names each run before it starts) is a hang:
// the binary is stopped and the mutant counted killed, as is one whose
// binary dies. An interrupt leaves m undecided.
func (r *mutationRun) runOne(ctx context.Context, m *realMutant) {
	t0 := time.Now()
	defer func() { m.Seconds = time.Since(t0).Seconds() }()
	verdict := filepath.Join(r.outDir, "verdicts", fmt.Sprintf("%d.json", m.Index))
	os.Remove(verdict)
	run, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(run, r.sd.bin, append(r.sweepArgs(), "-mutant.base", r.base, "-mutant.out", verdict)...)
	cmd.Dir, cmd.Env = r.t.moduleDir, append(r.sd.slot.goEnv(), "PODSIM_MUTANT="+strconv.Itoa(m.Index))
	var stdout strings.Builder
	cmd.Stdout = &stdout
	stderr, err := cmd.StderrPipe()
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		if ctx.Err() == nil { // else interrupted before it started: not decided
			m.Status, m.Reason = statusCrash, err.Error()
		}
		return
	}
	last, tail, hung := r.watch(stderr, cancel)
	err = cmd.Wait()
	switch {
	case ctx.Err() != nil:
		m.Status = "" // interrupted: not decided
	case hung:
		m.Status, m.Reason = statusHang, fmt.Sprintf("no run ended within %s", r.o.hang)
		m.inRun(last)
	case err != nil:
		m.Status, m.Reason = statusCrash, crashLine(tail, stdout.String())
		if strings.Contains(m.Reason, synctestDeadlock) {
			m.Status = statusHang // every goroutine of the run blocked for good: synctest saw the hang
		}
		m.inRun(last)
	default:
		if err := verdictOf(verdict, m); err != nil {
			m.Status, m.Reason = statusCrash, err.Error()
		}
	}
}

// watch reads the binary's stderr: the last "run MODE FAMILY SEED" line,
// the first panic line and the last other lines (a panic's goroutine dump
// runs to hundreds), and whether a run went past --hang (then it cancels
// the binary and reads on to the end).
func (r *mutationRun) watch(stderr io.Reader, cancel func()) (last string, tail []string, hung bool) {
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	timer := time.NewTimer(r.o.hang)
	defer timer.Stop()
	first := ""
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				if first != "" {
					tail = append([]string{first}, tail...)
				}
				return last, tail, hung
			}
			if strings.HasPrefix(l, "run ") {
				last = l
				if !hung {
					timer.Reset(r.o.hang)
				}
				continue
			}
			if first == "" && isPanic(l) {
				first = l
			}
			if len(tail) == 40 {
				tail = tail[1:]
			}
			tail = append(tail, l)
		case <-timer.C:
			hung = true
			cancel()
		}
	}
}

// inRun notes the run a hang or crash happened in ("run MODE FAMILY SEED").
func (m *realMutant) inRun(line string) {
	f := strings.Fields(line)
	if len(f) != 4 {
		return
	}
	seed, err := strconv.ParseUint(f[3], 10, 64)
	if err == nil {
		m.Mode, m.Family, m.Seed = f[1], f[2], seed
	}
}

// isPanic: a line that says why a Go program died.
func isPanic(l string) bool {
	return strings.HasPrefix(l, "panic:") || strings.Contains(l, "fatal error")
}

// synctestDeadlock is how synctest reports a run whose goroutines are all
// blocked for good (the run's own, not only leftovers, which Bubble turns
// into a finding).
const synctestDeadlock = "deadlock: all goroutines in bubble are blocked"

// crashLine is the first panic or fatal line of a dead binary's output,
// else its first failed test.
func crashLine(tail []string, stdout string) string {
	all := append(tail, strings.Split(stdout, "\n")...)
	for _, prefer := range []func(string) bool{
		isPanic,
		func(l string) bool { return strings.Contains(l, "--- FAIL") },
	} {
		for _, l := range all {
			if prefer(l) {
				return strings.TrimSpace(l)
			}
		}
	}
	for i := len(all) - 1; i >= 0; i-- {
		if s := strings.TrimSpace(all[i]); s != "" {
			return s
		}
	}
	return "the binary exited without a verdict"
}
