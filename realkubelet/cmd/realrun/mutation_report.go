package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/podsim/podsim/internal/mutation"
)

// mutationReport is what `realrun mutation --json` prints and
// mutation.json holds.
type mutationReport struct {
	Code        string       `json:"code"` // the mutated files, for the title
	Files       []string     `json:"files"`
	Tree        string       `json:"tree"`
	Families    int          `json:"families"`
	Start       uint64       `json:"start"`
	Seeds       int          `json:"seeds_per_family"`
	Modes       string       `json:"modes"`
	Logind      bool         `json:"logind_restart,omitempty"` // --logind-restart
	Guided      int          `json:"guided_runs,omitempty"`    // --guided: the survivors' guided pass, runs per family and mode
	Found       int          `json:"found"`
	Logging     int          `json:"logging_left_out"`
	Interrupted bool         `json:"interrupted"`
	Killed      int          `json:"killed"` // every kind of kill
	Scored      int          `json:"scored"` // decided mutants the compiler took
	Score       float64      `json:"score"`
	Mutants     []realMutant `json:"mutants"`
}

// report writes mutation.json and mutation.txt and prints one of them.
func (r *mutationRun) report(ms []realMutant, found, logging int, interrupted bool) error {
	rep := mutationReport{Code: r.t.label(), Files: r.t.files, Tree: r.t.tree(), Families: len(r.t.families), Start: r.o.start, Seeds: r.o.seeds,
		Modes: r.o.modes, Logind: r.o.logind, Guided: r.o.guided, Found: found, Logging: logging, Interrupted: interrupted, Mutants: ms}
	if r.o.scenario != "all" {
		rep.Families = 1
	}
	for _, m := range ms {
		if scoredStatus(m.Status) {
			rep.Scored++
		}
		if killedStatus(m.Status) {
			rep.Killed++
		}
	}
	if rep.Scored > 0 {
		rep.Score = float64(rep.Killed) / float64(rep.Scored)
	}
	b, _ := json.MarshalIndent(rep, "", "  ")
	if err := os.WriteFile(filepath.Join(r.outDir, "mutation.json"), b, 0o644); err != nil {
		return err
	}
	var txt strings.Builder
	printMutation(&txt, rep, r.o.hang.String())
	if err := os.WriteFile(filepath.Join(r.outDir, "mutation.txt"), []byte(txt.String()), 0o644); err != nil {
		return err
	}
	if r.o.json {
		fmt.Println(string(b))
	} else {
		fmt.Print(txt.String())
	}
	progress("results: %s, %s", filepath.Join(r.outDir, "mutation.txt"), filepath.Join(r.outDir, "mutation.json"))
	return nil
}

// printMutation prints the score, the table by operator, when the kills
// came, and one line per mutant.
func printMutation(w io.Writer, rep mutationReport, hang string) {
	last := rep.Start + uint64(rep.Seeds) - 1
	fmt.Fprintf(w, "realrun mutation: %s of %s\n", rep.Code, rep.Tree)
	fmt.Fprintf(w, "budget: %d families × seeds %d..%d × modes %s, seed by seed; a mutant stops at its first run with a finding key\n"+
		"        the unmutated tree's run lacks; a run that does not end within %s is a hang\n", rep.Families, rep.Start, last, rep.Modes, hang)
	if rep.Logind {
		fmt.Fprintln(w, "logind: restarts under the node shutdown manager before each shutdown event (--logind-restart)")
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
	traced := 0
	for _, m := range rep.Mutants {
		if m.Status == statusSurvived && m.Traced > 0 {
			traced++
		}
	}
	fmt.Fprintf(w, "score: %d / %d = %.1f %% killed (%d by a new finding, %d by the guided pass, %d by a hang, %d by a crash); %d survived "+
		"(%d changed some run's trace, %d none); %d refused by the compiler\n\n", rep.Killed, rep.Scored, 100*rep.Score,
		count("", statusKilled), count("", statusGuided), count("", statusHang), count("", statusCrash), count("", statusSurvived), traced,
		count("", statusSurvived)-traced, count("", statusRefused))
	if n := count("", statusUndecided); n > 0 {
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
		k, h, c, rf := count(op, statusKilled)+count(op, statusGuided), count(op, statusHang), count(op, statusCrash), count(op, statusRefused)
		fmt.Fprintf(w, "%-13s %7d %7d %5d %6d %9d %8d %6.1f%%\n", name, n, k, h, c, count(op, statusSurvived), rf,
			100*float64(countIf(op, killedStatus))/float64(max(1, countIf(op, scoredStatus))))
	}
	printBuckets(w, rep)
	at := fmt.Sprintf("%-9s", "line:col")
	if len(rep.Files) > 1 {
		at = fmt.Sprintf("%-25s", "file:line:col")
	}
	fmt.Fprintf(w, "\n%-5s %-11s %s %-12s %-15s %-40s %s\n", "#", "key", at, "operator", "status", "first caught (mode family seed)", "findings or reason; old => new")
	for _, m := range rep.Mutants {
		fmt.Fprintln(w, oneLine(m, len(rep.Files) > 1))
	}
}

// printBuckets prints how many seeds per family the kills needed: seed s
// is the s-th of the default sweep, which starts at seed 1 (realrun run,
// make real-sweep), whatever --start this pass began at.
func printBuckets(w io.Writer, rep mutationReport) {
	bounds := []uint64{1, 5, 20, 150, 500}
	counts := make([]int, len(bounds)+1)
	for _, m := range rep.Mutants {
		if !killedStatus(m.Status) || m.Family == "" || m.Status == statusGuided {
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

// oneLine is a mutant's row; withFile names its file (a target of more
// than one file).
func oneLine(m realMutant, withFile bool) string {
	where := "-"
	switch {
	case m.Status == statusGuided || m.Input != "":
		where = fmt.Sprintf("%s %s run %d", m.Mode, m.Family, m.Seed)
	case m.Family != "":
		where = fmt.Sprintf("%s %s %d", m.Mode, m.Family, m.Seed)
	}
	what := strings.Join(m.Keys, ", ")
	if m.Reason != "" {
		what = m.Reason
	}
	if m.Status == statusSurvived {
		what = fmt.Sprintf("%d runs, %d traces changed", m.Runs, m.Traced)
		if m.FirstTraced != "" {
			what += " (first: " + m.FirstTraced + ")"
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
