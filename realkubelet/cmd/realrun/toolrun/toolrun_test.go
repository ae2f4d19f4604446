package toolrun

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// The tests' child: this test binary run again with TOOLRUN_CHILD set
// plays a tool binary (beats on stderr, then a panic, a failed test or a
// silence that never ends).
func TestMain(m *testing.M) {
	switch os.Getenv("TOOLRUN_CHILD") {
	case "":
		os.Exit(m.Run())
	case "panic":
		for i := range 300 {
			fmt.Fprintf(os.Stderr, "gate: %d of 1000 runs\n", i+1)
		}
		fmt.Fprintln(os.Stderr, "panic: Internally inconsistent state [recovered, repanicked]")
		fmt.Fprint(os.Stderr, strings.Repeat("\tqueue.go:285 +0x145\n", 200))
		os.Exit(2)
	case "fail":
		fmt.Println("--- FAIL: TestGateSweep (0.01s)\n    gate.go:1: -sweep.family: no family \"x\"\nFAIL")
		os.Exit(1)
	case "interrupted":
		fmt.Fprintln(os.Stderr, "gate: run swarm plain seed 3")
		p, _ := os.FindProcess(os.Getpid())
		_ = p.Signal(os.Interrupt) // Go's default: the process ends by the signal
		time.Sleep(time.Hour)
	case "silent":
		fmt.Fprintln(os.Stderr, "run swarm plain seed 7")
		time.Sleep(time.Hour)
	}
}

func child(kind string, hang time.Duration) Cmd {
	return Cmd{Bin: os.Args[0], Env: append(os.Environ(), "TOOLRUN_CHILD="+kind), Hang: hang,
		Beat: func(l string) bool { return strings.HasPrefix(l, "gate: ") || strings.HasPrefix(l, "run ") }}
}

// TestRunSaysWhyADeadBinaryDied: a binary that panics after many beats is
// named by its panic line, every time. Until session 36 the gate's sweep
// gave the child's stdout a bytes.Buffer and its stderr a writer into the
// same buffer; the buffer's ReadFrom on the empty stdout truncated what
// stderr had written, and most dead sweeps said nothing at all.
func TestRunSaysWhyADeadBinaryDied(t *testing.T) {
	for i := range 10 {
		out := child("panic", time.Minute).Run(context.Background())
		if out.Err == nil || out.Hung {
			t.Fatalf("try %d: err %v, hung %v", i, out.Err, out.Hung)
		}
		if got := out.Why(); got != "panic: Internally inconsistent state [recovered, repanicked]" {
			t.Fatalf("try %d: Why() = %q", i, got)
		}
		if out.Last != "gate: 300 of 1000 runs" || len(out.Tail) != tailLines+1 {
			t.Fatalf("try %d: last beat %q, %d tail lines", i, out.Last, len(out.Tail))
		}
	}
	if got := child("fail", 0).Run(context.Background()).Why(); got != "--- FAIL: TestGateSweep (0.01s)" {
		t.Errorf("a failed test: Why() = %q", got)
	}
	if got := (Cmd{Bin: "/nonexistent/tool.test"}).Run(context.Background()); got.Err == nil || !strings.Contains(got.Why(), "/nonexistent/tool.test") {
		t.Errorf("a binary that cannot start: %v, Why() = %q", got.Err, got.Why())
	}
}

// TestRunTellsAnInterruptFromADeath: a binary ended by a signal it was
// not sent by the hang watch (here its own interrupt) is Signaled, not a
// crash of the code; one that panics or is stopped by the watch is not.
func TestRunTellsAnInterruptFromADeath(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no interrupt signal to send")
	}
	if out := child("interrupted", time.Minute).Run(context.Background()); !out.Signaled || out.Hung || out.Err == nil {
		t.Errorf("an interrupted binary: signaled %v, hung %v, err %v", out.Signaled, out.Hung, out.Err)
	}
	if out := child("panic", time.Minute).Run(context.Background()); out.Signaled {
		t.Errorf("a binary that panicked is counted as signaled: %v", out.Err)
	}
	if out := child("silent", 100*time.Millisecond).Run(context.Background()); out.Signaled || !out.Hung {
		t.Errorf("a binary the hang watch stopped: signaled %v, hung %v", out.Signaled, out.Hung)
	}
}

// TestRunStopsASilentBinary: no beat within the bound stops the binary
// and says so; the last beat names the run that did not end.
func TestRunStopsASilentBinary(t *testing.T) {
	out := child("silent", 200*time.Millisecond).Run(context.Background())
	if !out.Hung || out.Err == nil || out.Last != "run swarm plain seed 7" {
		t.Fatalf("hung %v, err %v, last %q", out.Hung, out.Err, out.Last)
	}
}

// TestWatch: the watcher keeps the last beat and a panic's line past a
// long goroutine dump; with no beat within the bound it calls stop once
// and reads on.
func TestWatch(t *testing.T) {
	c := child("", time.Minute)
	in := "run swarm plain seed 1\nrun swarm hold seed 2\npanic: close of nil channel\n" + strings.Repeat("goroutine 7 [running]:\n", 200)
	out := c.watch(bufio.NewScanner(strings.NewReader(in)), func() { t.Error("a finished binary was stopped") })
	if out.Last != "run swarm hold seed 2" || out.Hung || out.Why() != "panic: close of nil channel" {
		t.Fatalf("last %q, hung %v, why %q", out.Last, out.Hung, out.Why())
	}
	c.Hang = 20 * time.Millisecond
	pr, pw := io.Pipe()
	go func() { _, _ = io.WriteString(pw, "run early-kill plain seed 3\n") }()
	out = c.watch(bufio.NewScanner(pr), func() { pw.Close() })
	if !out.Hung || out.Last != "run early-kill plain seed 3" {
		t.Errorf("a silent binary: last %q, hung %v", out.Last, out.Hung)
	}
}

// TestWhy: a dead binary's reason is its panic (a synctest deadlock among
// them) before its failed test line, else its last line, else its error.
func TestWhy(t *testing.T) {
	dead := Outcome{Stdout: "=== RUN   TestMutantSweep\n--- FAIL: TestMutantSweep (0.21s)\npanic: " + synctestDeadlock +
		" [recovered, repanicked]\n\ngoroutine 107 [running]:\n"}
	if got := dead.Why(); got != "panic: "+synctestDeadlock+" [recovered, repanicked]" || !dead.Deadlock() {
		t.Errorf("Why() = %q, Deadlock() = %v", got, dead.Deadlock())
	}
	for _, c := range []struct {
		o    Outcome
		want string
	}{
		{Outcome{Tail: []string{"fatal error: sync: unlock of unlocked mutex"}, Stdout: "--- FAIL: X"}, "fatal error: sync: unlock of unlocked mutex"},
		{Outcome{Stdout: "--- FAIL: X (0.1s)\nFAIL\n"}, "--- FAIL: X (0.1s)"},
		{Outcome{Tail: []string{"a", "last words"}}, "last words"},
		{Outcome{Stdout: "FAIL\n", Err: fmt.Errorf("exit status 1")}, "exit status 1"},
		{Outcome{}, "the binary exited without a verdict"},
	} {
		if got := c.o.Why(); got != c.want || c.o.Deadlock() {
			t.Errorf("%+v: Why() = %q, want %q (deadlock %v)", c.o, got, c.want, c.o.Deadlock())
		}
	}
}

// TestGateBeats: every "gate: " line is a beat, and only the progress
// lines reach the log; a dead sweep is named by the run its last beat
// started (a seed's, or a guided run's with its input), else by the run
// after the last that ended.
func TestGateBeats(t *testing.T) {
	var logged []string
	beat := GateBeat(func(l string) { logged = append(logged, l) })
	for _, l := range []string{"gate: run a plain seed 1", "gate: ran a plain seed 1", "gate: 1 of 9 runs, 0 with findings (last: a plain seed 1)", "panic: x"} {
		if got, want := beat(l), strings.HasPrefix(l, "gate: "); got != want {
			t.Errorf("beat(%q) = %v", l, got)
		}
	}
	if len(logged) != 1 || logged[0] != "1 of 9 runs, 0 with findings (last: a plain seed 1)" {
		t.Errorf("logged %q, want the progress line only", logged)
	}
	for _, c := range []struct {
		last, where string
		run         Run
	}{
		{"gate: run vk-swarm plain run 155 input g1:Yrw2", " (in vk-swarm plain run 155)", Run{"vk-swarm", "plain", 155, "g1:Yrw2"}},
		{"gate: run swarm hold seed 58", " (in swarm hold seed 58)", Run{"swarm", "hold", 58, ""}},
		{"gate: ran swarm hold seed 57", " (the run after swarm hold seed 57)", Run{}},
		{"gate: 1000 of 9000 runs, 3 with findings (last: swarm hold seed 57)", " (the run after swarm hold seed 57)", Run{}},
		{"gate: run swarm hold seed x", "", Run{}},
		{"", "", Run{}},
	} {
		d := &Died{Side: "s", Out: Outcome{Last: c.last, Tail: []string{"panic: boom"}}}
		r, ok := d.Run()
		if want := "sweep on s did not complete" + c.where + ": panic: boom"; d.Error() != want || r != c.run || ok != (c.run != Run{}) {
			t.Errorf("last beat %q: %q, run %+v (%v)\nwant %q, %+v", c.last, d.Error(), r, ok, want, c.run)
		}
	}
	hung := &Died{Side: "s", Out: Outcome{Last: "gate: run swarm hold seed 58", Hung: true}, Hang: time.Second}
	if hung.Error() != "sweep on s: a run did not end within 1s (in swarm hold seed 58)" || !hung.Hung() {
		t.Errorf("a hung sweep: %q, %v", hung.Error(), hung.Hung())
	}
}

// TestEach: every wanted index is worked once, at most parallel at a time,
// and noted; once ctx ends nothing more starts.
func TestEach(t *testing.T) {
	var mu sync.Mutex
	running, most := 0, 0
	var noted []int
	Each(context.Background(), 3, 20, func(i int) bool { return i%2 == 0 }, func(int) {
		mu.Lock()
		running++
		most = max(most, running)
		mu.Unlock()
		time.Sleep(time.Millisecond)
		mu.Lock()
		running--
		mu.Unlock()
	}, func(i int) { noted = append(noted, i) })
	slices.Sort(noted)
	if !slices.Equal(noted, []int{0, 2, 4, 6, 8, 10, 12, 14, 16, 18}) || most > 3 {
		t.Errorf("noted %v, at most %d at once", noted, most)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var after []int
	Each(ctx, 1, 10, func(int) bool { return true }, func(i int) {
		if i == 2 {
			cancel()
		}
	}, func(i int) { after = append(after, i) })
	if !slices.Equal(after, []int{0, 1, 2}) {
		t.Errorf("after an interrupt at 2: %v", after)
	}
}
