package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/podsim/podsim/internal/mutation"
)

// hardSeeds: a mutant the default sweep needs more seeds per family than
// this to catch is "hard" (hard-mutants.txt).
const hardSeeds = 500

type report struct {
	Options  map[string]any `json:"options"`
	Found    map[string]int `json:"found"`      // mutants found, by package
	Dropped  map[string]int `json:"not_viable"` // mutants that do not compile, by package
	Results  []result       `json:"mutants"`
	dropped  map[int]string
	all      []entry
	duration time.Duration
	deep     uint64
}

func newReport(all []entry, dropped map[int]string, rs []result, o options, d time.Duration) *report {
	r := &report{Found: map[string]int{}, Dropped: map[string]int{}, Results: nil, dropped: dropped, all: all,
		duration: d, deep: o.deep}
	r.Options = map[string]any{"sample_per_package": o.sample, "sample_seed": o.seed, "random_seeds": o.random,
		"pct_seeds": o.pct, "deep_seeds": o.deep, "timeout": o.timeout.String(), "only": o.only, "ids": o.ids, "marks": o.marks,
		"interrupted_of": o.partial}
	for _, e := range all {
		r.Found[e.Package]++
		if _, gone := dropped[e.ID]; gone {
			r.Dropped[e.Package]++
		}
	}
	for _, x := range rs {
		if _, gone := dropped[x.ID]; !gone {
			r.Results = append(r.Results, x)
		}
	}
	return r
}

func (r *report) write(stdout io.Writer, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var text strings.Builder
	r.table(&text)
	fmt.Fprint(stdout, text.String())
	fmt.Fprintf(os.Stderr, "mutation run took %v (wall)\n", r.duration.Round(time.Second))
	js, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	var hard strings.Builder
	r.hard(&hard)
	for name, b := range map[string][]byte{"mutation.json": append(js, '\n'), "mutation.txt": []byte(text.String()),
		"hard-mutants.txt": []byte(hard.String())} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "wrote %s/{mutation.json,mutation.txt,hard-mutants.txt}\n", dir)
	return nil
}

type tally struct{ total, killed, timeout, crashed, marks, survived int }

func (t *tally) add(s Status) {
	t.total++
	switch s {
	case Killed:
		t.killed++
	case Timeout:
		t.timeout++
	case Crashed:
		t.crashed++
	case Marks:
		t.marks++
	case Survived:
		t.survived++
	}
}

func (t tally) row(name string) string {
	caught := t.killed + t.timeout + t.crashed + t.marks
	pct := 0.0
	if t.total > 0 {
		pct = 100 * float64(caught) / float64(t.total)
	}
	return fmt.Sprintf("%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d / %d = %.1f %%\t\n", name, t.total, t.killed, t.timeout, t.crashed,
		t.marks, t.survived, caught, t.total, pct)
}

func (r *report) table(w io.Writer) {
	fmt.Fprintf(w, "mutation score: workers' internal invariants off; sweep = random-walk seeds 0..%d and PCT seeds 0..%d of every family; coverage-mark check %v\n",
		asU(r.Options["random_seeds"])-1, asU(r.Options["pct_seeds"])-1, r.Options["marks"])
	if n := r.Options["interrupted_of"].(int); n > 0 {
		fmt.Fprintf(w, "INTERRUPTED: %d of the %d chosen mutants finished; only they are counted\n", len(r.Results), n)
	}
	if s := r.Options["sample_per_package"].(int); s > 0 {
		fmt.Fprintf(w, "sample: up to %d mutants per package, seed %d\n", s, r.Options["sample_seed"])
	}
	pkgs := sortedKeys(r.Found)
	for _, p := range pkgs {
		fmt.Fprintf(w, "%s: %d mutants found, %d not viable (do not compile)\n", p, r.Found[p], r.Dropped[p])
	}
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	fmt.Fprint(tw, "\npackage / operator\tmutants\tkilled\ttimeout\tcrash\tmarks\tsurvived\tscore\t\n")
	byPkg, byOp := map[string]*tally{}, map[string]*tally{}
	var all tally
	for _, x := range r.Results {
		for _, k := range []struct {
			m   map[string]*tally
			key string
		}{{byPkg, x.Package}, {byOp, x.Package + " " + string(x.Operator)}} {
			if k.m[k.key] == nil {
				k.m[k.key] = &tally{}
			}
			k.m[k.key].add(x.Status)
		}
		all.add(x.Status)
	}
	for _, p := range pkgs {
		if t := byPkg[p]; t != nil {
			fmt.Fprint(tw, t.row(p))
		}
		for _, op := range mutation.Operators() {
			if t := byOp[p+" "+string(op)]; t != nil {
				fmt.Fprint(tw, t.row("  "+string(op)))
			}
		}
	}
	fmt.Fprint(tw, all.row("all"))
	tw.Flush()
	fmt.Fprintln(w, "\nsurvivors:")
	for _, x := range r.Results {
		if x.Status == Survived {
			fmt.Fprintf(w, "  %s %s%s\n", x.Key, x.Mutant, r.deepNote(x))
		}
	}
}

func (r *report) deepNote(x result) string {
	switch {
	case x.Deep == nil:
		return ""
	case x.Deep.Killed && x.Deep.SeedsPerFamily > 0:
		return fmt.Sprintf("  [default sweep catches it at %d seeds/family: %s]", x.Deep.SeedsPerFamily, x.Deep.Family)
	case x.Deep.Killed:
		return "  [deep pass: " + x.Deep.Reason + "]"
	}
	return fmt.Sprintf("  [not caught by %d random seeds/family]", r.deep)
}

// hard lists the mutants the default sweep (random walk, seeds from 0 in
// every family) needs more than hardSeeds seeds per family to catch, or
// does not catch within the deep pass.
func (r *report) hard(w io.Writer) {
	fmt.Fprintf(w, "# mutants the default sweep needs > %d seeds per family to catch (random walk, seeds from 0)\n", hardSeeds)
	fmt.Fprintf(w, "# deep pass: %d seeds per family; columns: seeds/family (or 'none'), status in the focused sweep, key, mutant\n", r.deep)
	for _, x := range r.Results {
		spf := x.Verdict.SeedsPerFamily
		if x.Deep != nil {
			spf = x.Deep.SeedsPerFamily
		}
		switch {
		case spf > hardSeeds:
			fmt.Fprintf(w, "%d\t%s\t%s\t%s\n", spf, x.Status, x.Key, x.Mutant)
		case spf == 0 && x.Deep != nil && !x.Deep.Killed:
			fmt.Fprintf(w, "none\t%s\t%s\t%s\n", x.Status, x.Key, x.Mutant)
		}
	}
}

func asU(v any) uint64 { return v.(uint64) }

func sortedKeys(m map[string]int) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
