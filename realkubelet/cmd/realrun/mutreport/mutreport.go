// Package mutreport is realrun mutation's report: each mutant's outcome
// (Mutant, its Status), the score (Report), and the table mutation.txt
// holds (Print). It reads nothing and runs nothing.
package mutreport

import (
	"cmp"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/podsim/podsim/internal/mutation"
)

// A mutant's outcome (Mutant.Status).
const (
	Killed   = "killed"
	Hang     = "killed-by-hang"  // no run finished within --hang
	Crash    = "killed-by-crash" // the binary died (a panic in kubelet code)
	Survived = "survived"
	Refused  = "build-refused" // the compiler refused its guard
	// Undecided: its sweep was ended by a signal realrun did not send
	// (the OOM killer, a kill from outside): no verdict, and not scored.
	Undecided = "undecided"
	// Guided: killed by the guided pass (a key a guided input's run with
	// the mutant has and the unmutated run of the same input lacks).
	Guided = "killed-guided"
)

// Mutant is one mutant of the target's files (the real kubelet's or
// virtual-kubelet's) and its outcome.
type Mutant struct {
	mutation.Mutant
	Status string   `json:"status"`
	Family string   `json:"family,omitempty"`
	Seed   uint64   `json:"seed,omitempty"`
	Mode   string   `json:"mode,omitempty"`
	Keys   []string `json:"new_keys,omitempty"`
	Input  string   `json:"input,omitempty"` // killed-guided: the first caught run's input (Seed is its index in the loop)
	Runs   int      `json:"runs"`
	Traced int      `json:"traces_changed"`
	// Gone, GoneRuns: the base's finding keys some runs lack
	// (realdriver.MutantVerdict's).
	Gone     []string `json:"gone_keys,omitempty"`
	GoneRuns int      `json:"runs_with_gone_keys,omitempty"`
	// FirstTraced is the first run whose trace changed ("mode family seed").
	FirstTraced string `json:"first_trace_changed,omitempty"`
	// GuidedRuns and GuidedFound: the guided pass's runs with the mutant on
	// and those with findings (the unmutated build ran those again).
	GuidedRuns  int     `json:"guided_runs,omitempty"`
	GuidedFound int     `json:"guided_runs_with_findings,omitempty"`
	Reason      string  `json:"reason,omitempty"`
	Seconds     float64 `json:"seconds"`
}

// Scored: a mutant counts in the score (its denominator) unless the
// compiler refused it or its sweep ended from outside.
func Scored(s string) bool { return s != Refused && s != Undecided }

// IsKill reports whether a status counts as a kill.
func IsKill(s string) bool {
	return slices.Contains([]string{Killed, Hang, Crash, Guided}, s)
}

// Report is what `realrun mutation --json` prints and
// mutation.json holds.
type Report struct {
	Code        string   `json:"code"` // the mutated files, for the title
	Files       []string `json:"files"`
	Tree        string   `json:"tree"`
	Families    int      `json:"families"`
	Start       uint64   `json:"start"`
	Seeds       int      `json:"seeds_per_family"`
	Modes       string   `json:"modes"`
	Logind      bool     `json:"logind_restart,omitempty"` // --logind-restart
	LogindDelay bool     `json:"logind_delay,omitempty"`   // --logind-delay
	Guided      int      `json:"guided_runs,omitempty"`    // --guided: the survivors' guided pass, runs per family and mode
	Found       int      `json:"found"`
	Logging     int      `json:"logging_left_out"`
	Interrupted bool     `json:"interrupted"`
	Killed      int      `json:"killed"` // every kind of kill
	Scored      int      `json:"scored"` // decided mutants the compiler took
	Score       float64  `json:"score"`
	Mutants     []Mutant `json:"mutants"`
}

// Tally counts the scored and killed mutants and the score.
func (r *Report) Tally() {
	r.Scored, r.Killed = 0, 0
	for _, m := range r.Mutants {
		if Scored(m.Status) {
			r.Scored++
		}
		if IsKill(m.Status) {
			r.Killed++
		}
	}
	r.Score = 0
	if r.Scored > 0 {
		r.Score = float64(r.Killed) / float64(r.Scored)
	}
}

// Print prints the score, the table by operator, when the kills
// came, and one line per mutant.
func Print(w io.Writer, rep Report, hang string) {
	last := rep.Start + uint64(rep.Seeds) - 1
	fmt.Fprintf(w, "realrun mutation: %s of %s\n", rep.Code, rep.Tree)
	fmt.Fprintf(w, "budget: %d families × seeds %d..%d × modes %s, seed by seed; a mutant stops at its first run with a finding key\n"+
		"        the unmutated tree's run lacks; a run that does not end within %s is a hang\n", rep.Families, rep.Start, last, rep.Modes, hang)
	if rep.Logind {
		fmt.Fprintln(w, "logind: restarts under the node shutdown manager before each shutdown event (--logind-restart)")
	}
	if rep.LogindDelay {
		fmt.Fprintln(w, "logind: its inhibit delay starts short of the node shutdown manager's groups (--logind-delay)")
	}
	if rep.Guided > 0 {
		fmt.Fprintf(w, "guided: each survivor then %d runs per family and mode of the guided loop, each input with findings judged "+
			"by the unmutated tree's run of it\n", rep.Guided)
	}
	fmt.Fprintf(w, "mutants: %d found, %d logging statements left out, %d decided", rep.Found, rep.Logging, len(rep.Mutants))
	if rep.Interrupted {
		fmt.Fprint(w, " (INTERRUPTED: the others were not run)")
	}
	fmt.Fprintln(w)
	countIf := func(op mutation.Operator, in func(status string) bool) int {
		n := 0
		for _, m := range rep.Mutants {
			if (op == "" || m.Operator == op) && in(m.Status) {
				n++
			}
		}
		return n
	}
	count := func(op mutation.Operator, status string) int {
		return countIf(op, func(s string) bool { return status == "" || s == status })
	}
	traced, gone := 0, 0
	for _, m := range rep.Mutants {
		if m.Status == Survived && m.Traced > 0 {
			traced++
		}
		if m.Status == Survived && m.GoneRuns > 0 {
			gone++
		}
	}
	fmt.Fprintf(w, "score: %d / %d = %.1f %% killed (%d by a new finding, %d by the guided pass, %d by a hang, %d by a crash); %d survived "+
		"(%d changed some run's trace, %d none; %d took a finding away); %d refused by the compiler\n\n", rep.Killed, rep.Scored, 100*rep.Score,
		count("", Killed), count("", Guided), count("", Hang), count("", Crash), count("", Survived), traced,
		count("", Survived)-traced, gone, count("", Refused))
	if n := count("", Undecided); n > 0 {
		fmt.Fprintf(w, "UNDECIDED: %d, their sweeps ended from outside (a signal realrun did not send); not scored, run them again\n\n", n)
	}
	fmt.Fprintf(w, "%-13s %7s %7s %5s %6s %9s %8s %7s\n", "operator", "mutants", "killed", "hang", "crash", "survived", "refused", "score")
	for _, op := range append(mutation.Operators(), "") {
		name, n := string(op), count(op, "")
		if op == "" {
			name = "all"
		}
		if n == 0 {
			continue
		}
		k, h, c, rf := count(op, Killed)+count(op, Guided), count(op, Hang), count(op, Crash), count(op, Refused)
		fmt.Fprintf(w, "%-13s %7d %7d %5d %6d %9d %8d %6.1f%%\n", name, n, k, h, c, count(op, Survived), rf,
			100*float64(countIf(op, IsKill))/float64(max(1, countIf(op, Scored))))
	}
	printBuckets(w, rep)
	printTraced(w, rep)
	at := fmt.Sprintf("%-9s", "line:col")
	if len(rep.Files) > 1 {
		at = fmt.Sprintf("%-25s", "file:line:col")
	}
	fmt.Fprintf(w, "\n%-5s %-11s %s %-12s %-15s %-40s %s\n", "#", "key", at, "operator", "status", "first caught (mode family seed)", "findings or reason; old => new")
	for _, m := range rep.Mutants {
		fmt.Fprintln(w, OneLine(m, len(rep.Files) > 1))
	}
}

// printBuckets prints how many seeds per family the kills needed: seed s
// is the s-th of the default sweep, which starts at seed 1 (realrun run,
// make real-sweep), whatever --start this pass began at.
func printBuckets(w io.Writer, rep Report) {
	bounds := []uint64{1, 5, 20, 150, 500}
	counts := make([]int, len(bounds)+1)
	for _, m := range rep.Mutants {
		if !IsKill(m.Status) || m.Family == "" || m.Status == Guided {
			continue // a guided kill's number is a run of the loop, not a seed
		}
		n, i := m.Seed, 0
		for i < len(bounds) && n > bounds[i] {
			i++
		}
		counts[i]++
	}
	fmt.Fprintf(w, "\nseeds per family a kill needed (the default sweep starts at seed 1): 1: %d, 2–5: %d, 6–20: %d, 21–150: %d, 151–500: %d, >500: %d\n",
		counts[0], counts[1], counts[2], counts[3], counts[4], counts[5])
}

// printTraced lists the survivors that changed some run's trace, the most
// traces first: code that ran differently while no check said so, the
// first place to look for a missing check (docs/mutation.md, session 42).
func printTraced(w io.Writer, rep Report) {
	var traced []Mutant
	for _, m := range rep.Mutants {
		if m.Status == Survived && m.Traced > 0 {
			traced = append(traced, m)
		}
	}
	if len(traced) == 0 {
		return
	}
	slices.SortStableFunc(traced, func(a, b Mutant) int { return cmp.Or(cmp.Compare(b.Traced, a.Traced), cmp.Compare(a.Index, b.Index)) })
	fmt.Fprintf(w, "\nsurvivors that changed some run's trace, the most first (the code ran differently and no check said so):\n")
	for _, m := range traced {
		fmt.Fprintln(w, "  "+OneLine(m, len(rep.Files) > 1))
	}
}

// OneLine is a mutant's row; withFile names its file (a target of more
// than one file).
func OneLine(m Mutant, withFile bool) string {
	where := "-"
	switch {
	case m.Status == Guided || m.Input != "":
		where = fmt.Sprintf("%s %s run %d", m.Mode, m.Family, m.Seed)
	case m.Family != "":
		where = fmt.Sprintf("%s %s %d", m.Mode, m.Family, m.Seed)
	}
	what := strings.Join(m.Keys, ", ")
	if m.Reason != "" {
		what = m.Reason
	}
	if m.Status == Survived {
		what = fmt.Sprintf("%d runs, %d traces changed", m.Runs, m.Traced)
		if m.FirstTraced != "" {
			what += " (first: " + m.FirstTraced + ")"
		}
		if m.GoneRuns > 0 {
			what += fmt.Sprintf("; %s gone in %d", strings.Join(m.Gone, ", "), m.GoneRuns)
		}
		if m.GuidedRuns > 0 {
			what += fmt.Sprintf("; guided: %d runs, %d with findings, none new", m.GuidedRuns, m.GuidedFound)
		}
		if m.Reason != "" {
			what += "; " + m.Reason // the guided pass could not judge it
		}
	}
	at := fmt.Sprintf("%-9s", fmt.Sprintf("%d:%d", m.Line, m.Col))
	if withFile {
		at = fmt.Sprintf("%-25s", filepath.Base(m.File)+":"+at)
	}
	return fmt.Sprintf("%-5d %-11s %s %-12s %-15s %-40s %s; %s => %s", m.Index, m.Key, at, m.Operator,
		m.Status, where, what, shortText(m.Old), shortText(m.New))
}

// shortText is a mutant's text on one line, at most 60 characters.
func shortText(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 60 {
		return s[:57] + "..."
	}
	return s
}
