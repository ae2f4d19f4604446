package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/podsim/podsim/internal/mutation/active"
)

// Reach files (-reach-out, -reach-in): a sweep of the schema build with no
// mutant on writes, per run, the mutants whose site the run reached, one
// line a run: "strategy family seed id id …". A run that never reaches a
// mutant's site is the same run with that mutant on (every guard takes the
// original code until its site runs), so a sweep of the mutant that reads
// the file skips those runs: they cannot fail where the unmutated run
// passed. Runs the file does not list are run. The file holds for the
// schema build that wrote it only (the numbers are that build's).

// reachOut, when set, receives a line per run.
var reachOut io.Writer

// reachSkips holds, for the mutant on, the runs of the -reach-in file
// that do not reach it, by reachKey; nil without -reach-in.
var reachSkips map[string]bool

func reachKey(strategy, family string, seed uint64) string {
	return strategy + " " + family + " " + strconv.FormatUint(seed, 10)
}

// beforeRun reports whether the run may be skipped (it cannot reach the
// mutant on), and starts recording when writing a reach file.
func beforeRun(strategy, family string, seed uint64) (skip bool) {
	if reachSkips[reachKey(strategy, family, seed)] {
		return true
	}
	if reachOut != nil {
		active.Record()
	}
	return false
}

// afterRun writes the run's line of the reach file.
func afterRun(strategy, family string, seed uint64) {
	if reachOut == nil {
		return
	}
	var b strings.Builder
	b.WriteString(reachKey(strategy, family, seed))
	for _, id := range active.Reached() {
		b.WriteByte(' ')
		b.WriteString(strconv.Itoa(id))
	}
	b.WriteByte('\n')
	if _, err := io.WriteString(reachOut, b.String()); err != nil {
		fmt.Fprintln(os.Stderr, "sweep: reach file:", err)
		os.Exit(1)
	}
}

// readSkips returns the runs of a reach file that do not reach mutant id.
func readSkips(r io.Reader, id int) (map[string]bool, error) {
	skips := map[string]bool{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for n := 1; sc.Scan(); n++ {
		fields := strings.Fields(sc.Text())
		if len(fields) < 3 {
			return nil, fmt.Errorf("line %d: want \"strategy family seed id …\"", n)
		}
		seed, err := strconv.ParseUint(fields[2], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("line %d: seed %q", n, fields[2])
		}
		ids := make([]int, 0, len(fields)-3)
		for _, f := range fields[3:] {
			x, err := strconv.Atoi(f)
			if err != nil {
				return nil, fmt.Errorf("line %d: mutant %q", n, f)
			}
			ids = append(ids, x)
		}
		if !slices.Contains(ids, id) {
			skips[reachKey(fields[0], fields[1], seed)] = true
		}
	}
	return skips, sc.Err()
}

// openReach sets up -reach-out and -reach-in; the returned func closes the
// output.
func openReach(out, in string) (func(), error) {
	done := func() {}
	if in != "" {
		if active.Which() < 0 {
			return nil, fmt.Errorf("-reach-in needs a mutant on (%s)", active.Env)
		}
		f, err := os.Open(in)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		if reachSkips, err = readSkips(f, active.Which()); err != nil {
			return nil, fmt.Errorf("%s: %v", in, err)
		}
	}
	if out != "" {
		if active.Which() >= 0 {
			return nil, fmt.Errorf("-reach-out records the unmutated build: unset %s", active.Env)
		}
		f, err := os.Create(out)
		if err != nil {
			return nil, err
		}
		w := bufio.NewWriter(f)
		reachOut = w
		done = func() {
			err := w.Flush()
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				fmt.Fprintln(os.Stderr, "sweep: reach file:", err)
				os.Exit(1)
			}
		}
	}
	return done, nil
}
