// Package toolrun runs one of a target's tool tests (a realkubelet.test
// or realvk.test binary) as realrun's child. The binary writes a line to
// stderr for every run (a beat); toolrun stops a binary none of whose runs
// ends within the hang bound, keeps what it needs to say in one line why a
// binary died, and never lets the child's two streams share a buffer.
//
// The wall clock reaches only the hang bound: a run that takes longer
// than it ends the binary, as a test's -test.timeout would, and nothing
// else the binary writes depends on time.
package toolrun

import (
	"bufio"
	"context"
	"errors"
	"os/exec"
	"strings"
	"time"
)

// Cmd is one run of a tool binary.
type Cmd struct {
	Bin  string
	Args []string
	Dir  string
	Env  []string
	// Hang bounds the time from one beat to the next (from the start to
	// the first): past it the binary is stopped and the outcome is Hung.
	// 0: no bound.
	Hang time.Duration
	// Beat reports whether a stderr line marks a run (the mutation sweep's
	// "run FAMILY MODE seed S" before each run, the gate sweep's "gate: N of
	// T runs, ..." after each). Beats are not kept in the tail.
	Beat func(line string) bool
}

// Outcome is what a finished (or stopped) binary left.
type Outcome struct {
	Last string   // the last beat
	Tail []string // the first panic line, then the last 40 other stderr lines
	Hung bool     // stopped: no beat within Hang
	// Signaled: the binary ended by a signal the hang watch did not send
	// (an interrupt, the context's end, the OOM killer). Go code that
	// fails exits with a status, so this says nothing of the code.
	Signaled bool
	Stdout   string
	Err      error // the start's or the wait's error; nil when the binary passed
}

// tailLines bounds the stderr lines an Outcome keeps (a panic's goroutine
// dump runs to hundreds).
const tailLines = 40

// Run runs c until it exits, is stopped by the hang bound, or ctx ends
// (then the binary is killed and Err says so).
func (c Cmd) Run(ctx context.Context) Outcome {
	run, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(run, c.Bin, c.Args...)
	cmd.Dir, cmd.Env = c.Dir, c.Env
	var stdout strings.Builder
	cmd.Stdout = &stdout // stderr is read below, never into the same buffer
	stderr, err := cmd.StderrPipe()
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		return Outcome{Err: err}
	}
	out := c.watch(bufio.NewScanner(stderr), cancel)
	out.Err = cmd.Wait()
	out.Stdout = stdout.String()
	var exit *exec.ExitError
	out.Signaled = !out.Hung && errors.As(out.Err, &exit) && !exit.Exited()
	return out
}

// watch reads the binary's stderr to its end: the last beat, the first
// panic line and the last other lines, and whether a run went past the
// hang bound (then it calls stop and reads on to the end).
func (c Cmd) watch(sc *bufio.Scanner, stop func()) Outcome {
	lines := make(chan string)
	go func() {
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var expired <-chan time.Time
	var timer *time.Timer
	if c.Hang > 0 {
		timer = time.NewTimer(c.Hang)
		defer timer.Stop()
		expired = timer.C
	}
	var out Outcome
	first := ""
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				if first != "" {
					out.Tail = append([]string{first}, out.Tail...)
				}
				return out
			}
			if c.Beat != nil && c.Beat(l) {
				out.Last = l
				if timer != nil && !out.Hung {
					timer.Reset(c.Hang)
				}
				continue
			}
			if first == "" && isPanic(l) {
				first = l
			}
			if len(out.Tail) == tailLines {
				out.Tail = out.Tail[1:]
			}
			out.Tail = append(out.Tail, l)
		case <-expired:
			out.Hung = true
			stop()
		}
	}
}

// isPanic: a line that says why a Go program died.
func isPanic(l string) bool {
	return strings.HasPrefix(l, "panic:") || strings.Contains(l, "fatal error")
}

// synctestDeadlock is how synctest reports a run whose goroutines are all
// blocked for good (the run's own, not only leftovers, which the drivers
// turn into a finding).
const synctestDeadlock = "deadlock: all goroutines in bubble are blocked"

// Deadlock reports whether the binary died of a synctest deadlock: every
// goroutine of a run blocked for good, a hang synctest saw.
func (o Outcome) Deadlock() bool { return strings.Contains(o.Why(), synctestDeadlock) }

// Why is the one line that says why the binary failed: its first panic or
// fatal line, else its first failed test, else its last line, else the
// start's or the wait's error.
func (o Outcome) Why() string {
	all := append(append([]string(nil), o.Tail...), strings.Split(o.Stdout, "\n")...)
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
		if s := strings.TrimSpace(all[i]); s != "" && s != "FAIL" {
			return s
		}
	}
	if o.Err != nil {
		return o.Err.Error()
	}
	return "the binary exited without a verdict"
}

// goNoise: the go command's lines about fetching modules, which come
// before its errors, and its "go get" hint under a missing package (the
// fix is never to add a module to realkubelet).
func goNoise(l string) bool {
	for _, p := range []string{"go: downloading ", "go: finding ", "go: extracting ", "go: found ", "go get "} {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}

// FirstLines is the first n non-empty lines of a command's output, but
// `go test`'s own "#" and "=== RUN" lines and the go command's module
// fetches, joined with " | ".
func FirstLines(out []byte, n int) string {
	var keep []string
	for _, l := range strings.Split(string(out), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") && !strings.HasPrefix(l, "=== RUN") && !goNoise(l) {
			keep = append(keep, l)
		}
		if len(keep) == n {
			break
		}
	}
	return strings.Join(keep, " | ")
}
