package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/podsim/podsim/internal/mutation"
	"github.com/podsim/podsim/internal/mutation/active"
)

// verdict is the sweep's line.
type verdict = mutation.Verdict

// Status is a mutant's outcome.
type Status string

const (
	Killed  Status = "killed"
	Timeout Status = "killed-by-timeout" // the sweep ran past --timeout
	Crashed Status = "killed-by-crash"   // the sweep's process died (a panic outside the simulation)
	// Marks: every run passed, but a family's declared coverage mark that
	// the unmutated sweep reaches was reached by none of its seeds.
	Marks    Status = "killed-by-marks"
	Survived Status = "survived"
)

// result is one mutant's outcome.
type result struct {
	entry
	Status  Status        `json:"status"`
	Verdict verdict       `json:"verdict"`
	Wall    time.Duration `json:"-"`
	// Deep is the seeds-to-detection pass (--deep), for survivors and
	// PCT-only kills.
	Deep *verdict `json:"deep,omitempty"`
}

// sweepArgs are the sweep's flags for the quick pass.
func sweepArgs(o options) []string {
	return []string{"-random", fmt.Sprint(o.random), "-pct", fmt.Sprint(o.pct), fmt.Sprintf("-marks=%v", o.marks)}
}

// exec runs the sweep binary with mutant id on (-1: none).
func (b *build) exec(id int, args []string, timeout time.Duration) (verdict, Status, error) {
	ctx, cancel := context.WithTimeout(runCtx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, b.bin, args...)
	on := "" // no mutant
	if id >= 0 {
		on = fmt.Sprint(id)
	}
	cmd.Env = append(os.Environ(), active.Env+"="+on)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if runCtx.Err() != nil {
		return verdict{}, "", runCtx.Err()
	}
	if ctx.Err() != nil {
		return verdict{Killed: true, Reason: "timeout"}, Timeout, nil
	}
	if err != nil {
		return verdict{Killed: true, Reason: "crash: " + lastLine(stderr.String())}, Crashed, nil
	}
	var v verdict
	if err := json.Unmarshal(bytes.TrimSpace(stdout.Bytes()), &v); err != nil {
		return v, "", fmt.Errorf("mutant %d: sweep output %q: %v", id, stdout.String(), err)
	}
	if v.Killed {
		return v, Killed, nil
	}
	for _, m := range v.Unreached {
		if !slices.Contains(b.unreached, m) {
			v.Reason = "coverage mark " + m + " never reached (the unmutated sweep reaches it)"
			return v, Marks, nil
		}
	}
	return v, Survived, nil
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for _, l := range lines {
		if strings.HasPrefix(l, "panic:") || strings.Contains(l, "fatal error") {
			return l
		}
	}
	return lines[len(lines)-1]
}

// checkPreserving runs the sweep with no mutant on, on the schema binary
// and on a plain build: both must pass with the same trace digest, or the
// guards changed behaviour and no verdict of this run would mean anything.
func (b *build) checkPreserving(o options) error {
	plain := build{bin: filepath.Join(filepath.Dir(b.bin), "plain")}
	cmd := exec.CommandContext(runCtx, "go", "build", "-o", plain.bin, "./internal/mutation/sweep")
	cmd.Dir = o.root
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("plain build: %v\n%s", err, out)
	}
	var digests []string
	for _, bin := range []*build{b, &plain} {
		v, st, err := bin.exec(-1, sweepArgs(o), 4*o.timeout)
		if err != nil {
			return err
		}
		// Marks: nothing is compared yet; the unmutated sweep's unreached
		// marks are what mutants are compared with.
		if st != Survived && st != Marks {
			return fmt.Errorf("the unmutated sweep fails (%s: %s): fix the code or the sweep first", st, v.Reason)
		}
		digests = append(digests, v.Digest)
		if bin == b {
			b.unreached = v.Unreached
		}
	}
	if digests[0] != digests[1] {
		return errors.New("the schema build with no mutant on behaves unlike the plain build (trace digests differ)")
	}
	fmt.Fprintf(os.Stderr, "no mutant on: schema and plain builds pass with the same trace digest %.12s\n", digests[0])
	return nil
}

// runAll runs the sweep once per chosen mutant, o.parallel at a time, and
// returns the results in the order of chosen.
func runAll(b *build, chosen []entry, o options) []result {
	return parallel(len(chosen), o.parallel, func(i int) result {
		t := time.Now()
		v, st, err := b.exec(chosen[i].ID, sweepArgs(o), o.timeout)
		if err != nil && runCtx.Err() == nil {
			v, st = verdict{Killed: true, Reason: err.Error()}, Crashed
		}
		return result{entry: chosen[i], Status: st, Verdict: v, Wall: time.Since(t)}
	}, func(done int) {
		if done%25 == 0 || done == len(chosen) {
			fmt.Fprintf(os.Stderr, "%d/%d mutants\n", done, len(chosen))
		}
	})
}

// finished keeps the results of the sweeps that ran to the end (an
// interrupt leaves the others without a status).
func finished(rs []result) []result {
	var out []result
	for _, r := range rs {
		if r.Status != "" {
			out = append(out, r)
		}
	}
	return out
}

// deepen runs the seeds-to-detection pass: the random-walk seeds o.random
// to o.deep-1 of every family, for the mutants the quick pass did not
// catch under the random walk.
func deepen(b *build, rs []result, o options) {
	var todo []int
	for i, r := range rs {
		// A determinism catch has no seeds-to-detection: the default sweep
		// runs each seed once.
		pctOnly := r.Status == Killed && r.Verdict.SeedsPerFamily == 0 && r.Verdict.Strategy != "determinism"
		if (r.Status == Survived || pctOnly) && o.deep > o.random {
			todo = append(todo, i)
		}
	}
	args := []string{"-start", fmt.Sprint(o.random), "-random", fmt.Sprint(o.deep - o.random), "-pct", "0"}
	deep := parallel(len(todo), o.parallel, func(k int) verdict {
		v, st, err := b.exec(rs[todo[k]].ID, args, 10*o.timeout)
		if err != nil || st == Timeout || st == Crashed {
			v.Reason = fmt.Sprint(st, " ", err)
		}
		return v
	}, func(done int) {
		if done%10 == 0 || done == len(todo) {
			fmt.Fprintf(os.Stderr, "deep pass: %d/%d mutants\n", done, len(todo))
		}
	})
	for k, i := range todo {
		v := deep[k]
		rs[i].Deep = &v
	}
}

// parallel computes f(0..n-1) with at most p at once; progress is called
// (in one goroutine at a time) after each completes.
func parallel[T any](n, p int, f func(int) T, progress func(done int)) []T {
	out := make([]T, n)
	var mu sync.Mutex
	done := 0
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < p; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i] = f(i)
				mu.Lock()
				done++
				progress(done)
				mu.Unlock()
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}
