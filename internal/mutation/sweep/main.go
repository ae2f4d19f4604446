// Command sweep is the focused sweep a mutant is judged by
// (internal/mutation/mutate builds it once per mutant): seeds 0..random-1 of
// every scenario family under the random walk, seed by seed (seed 0 of every
// family, then seed 1, …), then seeds 0..pct-1 under PCT (depth 3), with
// every oracle on. It stops at the first failing seed and prints one JSON
// line: whether the mutant was caught, by which seed, family and strategy,
// and why. Under the random walk the seed order is the default sweep's
// (`simrun run`: seeds from 0 in every family), so a catch at seed s means
// the default sweep needs s+1 seeds per family to catch the mutant. A sweep
// that catches nothing runs each family's first random-walk seeds again
// (-determinism) and compares the traces (checkDeterminism): a mismatch is
// a catch too.
//
// The mutant is PODSIM_MUTANT: its number or its key (internal/mutation/active).
//
// Exit code 0 whatever the verdict (the JSON says it); 2 on bad flags or a
// PODSIM_MUTANT that names no mutant of the build.
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/podsim/podsim/internal/mutation"
	"github.com/podsim/podsim/internal/mutation/active"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/run"
	"github.com/podsim/podsim/sim"
)

func main() {
	start := flag.Uint64("start", 0, "first random-walk seed")
	random := flag.Uint64("random", 20, "random-walk seeds per family (from --start)")
	pct := flag.Uint64("pct", 20, "PCT seeds per family (from 0)")
	marks := flag.Bool("marks", true, "list the families' declared coverage marks that none of their seeds reached")
	family := flag.String("family", "", "sweep these families only, comma-separated, in this order (default: every family)")
	guidedRuns := flag.Uint64("guided", 0, "instead: a guided corpus loop of this many runs per family (loop seed --start), family by family")
	corpusDir := flag.String("corpus", "", "with -guided: start each family's loop from DIR/<family>.corpus and replay its entries first")
	flag.BoolVar(&replayByAge, "replay-by-age", false, "with -corpus: replay the entries oldest first, not rarest first (the control)")
	faultPoints := flag.Bool("faultpoints", false, "arm the situation fault points (run.CheckOptions.FaultPoints)")
	flag.Uint64Var(&determinismSeeds, "determinism", 20, "a sweep that catches nothing runs its first N random-walk seeds a family again and compares the traces (0: no check)")
	flag.BoolVar(&count, "count", false, "go on past the first failing run and count the failing runs (the first still names the seed)")
	reachOutFile := flag.String("reach-out", "", "with no mutant on: write FILE, per random-walk or PCT run, the mutants whose site the run reached")
	reachInFile := flag.String("reach-in", "", "skip the runs that FILE (from -reach-out) says do not reach the mutant on")
	flag.Parse()
	opts = run.CheckOptions{ObservableOnly: true, FaultPoints: *faultPoints}
	if p := active.Problem(); p != "" {
		fmt.Fprintln(os.Stderr, "sweep:", p)
		os.Exit(2)
	}
	if flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "sweep: no arguments expected")
		os.Exit(2)
	}
	fams, err := familiesNamed(*family)
	if err != nil {
		fmt.Fprintln(os.Stderr, "sweep:", err)
		os.Exit(2)
	}
	closeReach, err := openReach(*reachOutFile, *reachInFile)
	if err != nil {
		fmt.Fprintln(os.Stderr, "sweep:", err)
		os.Exit(2)
	}
	var v mutation.Verdict
	if *guidedRuns > 0 {
		v = guidedSweep(fams, *start, *guidedRuns, *corpusDir)
	} else {
		v = sweep(fams, *start, *random, *pct, *marks)
	}
	closeReach()
	out, _ := json.Marshal(v)
	fmt.Println(string(out))
}

// familiesNamed returns the families of a comma-separated list, in its
// order; every family for an empty list.
func familiesNamed(list string) ([]plan.Family, error) {
	if list == "" {
		return plan.Families(), nil
	}
	var fams []plan.Family
	for _, name := range strings.Split(list, ",") {
		f, ok := plan.FamilyNamed(name)
		if !ok {
			return nil, fmt.Errorf("no family %q", name)
		}
		fams = append(fams, f)
	}
	return fams, nil
}

// opts are the checks of every run: observable only, fault points as asked.
var opts run.CheckOptions

// replayByAge: a -corpus replay runs the entries oldest first.
var replayByAge bool

// determinismSeeds: the first random-walk seeds of each family the
// determinism check runs again.
var determinismSeeds uint64

// count: the sweep goes on past the first failing run and counts them
// (Verdict.Failures), for a per-run detection rate.
var count bool

// failed notes one failing run in v: the first names the verdict; under
// -count each is counted.
func failed(v *mutation.Verdict, strategy, family string, seed uint64, r run.Result) {
	if count {
		v.Failures++
		what := "run"
		if r.Err == nil {
			what = r.Violations[0].Oracle + "/" + r.Violations[0].Invariant
		}
		v.FailedAt = append(v.FailedAt, fmt.Sprintf("%d %s", seed, what))
	}
	if !v.Killed {
		v.Killed, v.Strategy, v.Family, v.Seed, v.Reason = true, strategy, family, seed, reason(r)
	}
}

func sweep(fams []plan.Family, start, random, pct uint64, marks bool) (v mutation.Verdict) {
	reached := map[string]map[string]bool{}
	first := firstTraces{}
	h := sha256.New()
	defer func() { v.Digest = hex.EncodeToString(h.Sum(nil)) }()
	try := func(strategy sim.Strategy, seed uint64) bool {
		for _, f := range fams {
			if beforeRun(strategy.String(), f.Name, seed) {
				v.Skipped++
				continue
			}
			v.Runs++
			r := run.RunSeed(f, seed, strategy, opts)
			afterRun(strategy.String(), f.Name, seed)
			h.Write([]byte(r.TraceSHA))
			if seed < start+determinismSeeds && strategy.String() == (sim.RandomWalk{}).String() {
				first[f.Name] = append(first[f.Name], seedTrace{seed, r.TraceSHA})
			}
			if reached[f.Name] == nil {
				reached[f.Name] = map[string]bool{}
			}
			for _, m := range r.Marks {
				reached[f.Name][m] = true
			}
			if r.Failed() {
				first := !v.Killed
				failed(&v, strategy.String(), f.Name, seed, r)
				if first && strategy.String() == (sim.RandomWalk{}).String() {
					v.SeedsPerFamily = seed + 1
				}
				if !count {
					return true
				}
			}
		}
		return false
	}
	for seed := start; seed < start+random; seed++ {
		if try(sim.RandomWalk{}, seed) {
			return v
		}
	}
	for seed := uint64(0); seed < pct; seed++ {
		if try(sim.PCT{Depth: 3, Steps: 2000}, seed) {
			return v
		}
	}
	if !v.Killed {
		checkDeterminism(fams, first, func(f plan.Family, seed uint64) string {
			return run.RunSeed(f, seed, sim.RandomWalk{}, opts).TraceSHA
		}, &v)
	}
	if marks && !v.Killed && reachSkips == nil { // skipped runs reach no marks
		unreached(fams, reached, &v)
	}
	return v
}

// unreached lists, as family/mark, the declared coverage marks of the
// families that none of their seeds reached, after a sweep that caught
// nothing (issue 17's "unreached marks fail"). The runner compares the list
// with the unmutated sweep's: a mutant that stops an actor from acting
// leaves a legal history, but not the situation its family exists to make.
func unreached(fams []plan.Family, reached map[string]map[string]bool, v *mutation.Verdict) {
	for _, f := range fams {
		for _, m := range f.Marks {
			if !reached[f.Name][m] {
				v.Unreached = append(v.Unreached, f.Name+"/"+m)
			}
		}
	}
}

// reason is the first failure of r, on one line.
func reason(r run.Result) string {
	msg := ""
	if r.Err != nil {
		msg = "run: " + r.Err.Error()
	} else {
		viol := r.Violations[0]
		msg = viol.Oracle + "/" + viol.Invariant + ": " + viol.Message
	}
	msg = strings.Join(strings.Fields(msg), " ")
	if len(msg) > 300 {
		msg = msg[:297] + "..."
	}
	return msg
}
