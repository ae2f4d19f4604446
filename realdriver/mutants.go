package realdriver

import (
	"bufio"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/podsim/podsim/plan"
)

// A mutation run (realrun mutation) judges each mutant of a real target's
// code by the runs of the target's tool test TestMutantSweep, which calls
// MutantSweep: every family's seeds start.. in every mode, seed by seed
// (seed s of every family in each mode, then seed s+1), so that a kill at
// seed s means the default sweep needs s seeds per family. Without a base
// it returns every run's line (the record of the unmutated code, and of
// the schema build with no mutant on, which must be the same); with one it
// stops at the first run with a finding key the base's run lacks (the
// gate's regression).

// MutantVerdict is TestMutantSweep's verdict on one mutant.
type MutantVerdict struct {
	Killed bool     `json:"killed"`
	Family string   `json:"family,omitempty"` // the first run with a new key
	Seed   uint64   `json:"seed"`
	Mode   string   `json:"mode,omitempty"`
	Keys   []string `json:"new_keys,omitempty"`
	Runs   int      `json:"runs"`           // runs made, the killing one included
	Traced int      `json:"traces_changed"` // runs whose trace differs from the base's
	// FirstTraced is the first of them ("mode family seed").
	FirstTraced string `json:"first_trace_changed,omitempty"`
	// Gone are the finding keys some run's base had and the run lacks
	// (sorted, once each), in GoneRuns runs: a mutant that survives this
	// way removed a finding, a known deviation's perhaps (its fix), rather
	// than changing nothing.
	Gone     []string `json:"gone_keys,omitempty"`
	GoneRuns int      `json:"runs_with_gone_keys,omitempty"`
}

// MutantRun is what a mutant sweep keeps of one run: its trace digest and
// its finding keys, sorted, once each.
type MutantRun struct {
	TraceSHA string
	Keys     []string
}

// MutantSweep makes the runs of seeds start..start+seeds-1 of each family
// (of those the comma-separated list only names, unless only is "") in
// each mode, seed by seed, naming each on progress before it starts
// (runBeat: "run FAMILY MODE seed SEED", which realrun reads to name the
// run a hanging or crashing mutant was in). With a nil base it returns
// every run's line (mode, family, seed, trace digest, keys joined by
// "|"); with a base (ReadMutantBase) it stops at the first run with a key
// the base's run lacks. An only that names none of the families is an
// error.
func MutantSweep(progress io.Writer, base map[string]string, modes []string, families []plan.Family, only string, start uint64, seeds int,
	run func(mode string, f plan.Family, seed uint64) MutantRun) ([]string, MutantVerdict, error) {
	var lines []string
	var v MutantVerdict
	if only != "" {
		names := strings.Split(only, ",")
		families = slices.DeleteFunc(slices.Clone(families), func(f plan.Family) bool { return !slices.Contains(names, f.Name) })
		if len(families) == 0 {
			return nil, v, fmt.Errorf("%q names no family", only)
		}
	}
	for i := range seeds {
		seed := start + uint64(i)
		for _, mode := range modes {
			for _, fam := range families {
				f := fam.Name
				fmt.Fprintln(progress, runBeat(f, mode, "seed", seed, ""))
				r := run(mode, fam, seed)
				v.Runs++
				name := fmt.Sprintf("%s\t%s\t%d", mode, f, seed)
				if base == nil {
					lines = append(lines, name+"\t"+r.TraceSHA+"\t"+strings.Join(r.Keys, "|"))
					continue
				}
				was, ok := base[name]
				if !ok {
					return nil, v, fmt.Errorf("the base has no run %s %s %d", mode, f, seed)
				}
				wasSHA, wasKeys, _ := strings.Cut(was, "\t")
				had := splitKeys(wasKeys)
				if wasSHA != r.TraceSHA {
					if v.Traced++; v.Traced == 1 {
						v.FirstTraced = fmt.Sprintf("%s %s %d", mode, f, seed)
					}
				}
				if gone := lacking(had, r.Keys); len(gone) > 0 {
					v.GoneRuns++
					for _, k := range gone {
						if !slices.Contains(v.Gone, k) {
							v.Gone = append(v.Gone, k)
						}
					}
					slices.Sort(v.Gone)
				}
				if v.Keys = lacking(r.Keys, had); len(v.Keys) > 0 {
					v.Killed, v.Family, v.Seed, v.Mode = true, f, seed, mode
					return lines, v, nil
				}
			}
		}
	}
	return lines, v, nil
}

// splitKeys is a base line's keys ("" none).
func splitKeys(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "|")
}

// ReadMutantBase reads a file of MutantSweep's lines: "mode family seed"
// (tab-separated) → "digest keys". Nil for no file.
func ReadMutantBase(file string) (map[string]string, error) {
	if file == "" {
		return nil, nil
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		p := strings.Split(sc.Text(), "\t")
		if len(p) != 5 {
			return nil, fmt.Errorf("%s: bad line %q", file, sc.Text())
		}
		if _, err := strconv.ParseUint(p[2], 10, 64); err != nil {
			return nil, fmt.Errorf("%s: bad seed in %q", file, sc.Text())
		}
		out[strings.Join(p[:3], "\t")] = p[3] + "\t" + p[4]
	}
	return out, sc.Err()
}

// MutantFlags are a target's TestMutantSweep flags: -mutant.record,
// -mutant.base and -mutant.out.
type MutantFlags struct{ record, base, out *string }

// NewMutantFlags registers the flags on the command line; a target's test
// package calls it once, in a package-level var.
func NewMutantFlags() MutantFlags {
	return MutantFlags{
		record: flag.String("mutant.record", "", "TestMutantSweep: write every run (mode, family, seed, trace digest, keys) here"),
		base:   flag.String("mutant.base", "", "TestMutantSweep: stop at the first run with a finding key this recorded base lacks"),
		out:    flag.String("mutant.out", "", "TestMutantSweep -mutant.base: write the verdict here (JSON)"),
	}
}

// Run is a target's TestMutantSweep (skipped unless seeds > 0 and exactly
// one of -mutant.record and -mutant.base is set): with -mutant.record it
// writes every run's line of sweep(nil) there; with -mutant.base it
// sweeps against that file's runs and writes the verdict (JSON) to
// -mutant.out.
func (f MutantFlags) Run(t testing.TB, seeds int, sweep func(base map[string]string) ([]string, MutantVerdict)) {
	t.Helper()
	if (*f.record == "") == (*f.base == "") || seeds == 0 {
		t.Skip("tool: needs -sweep N and one of -mutant.record, -mutant.base")
	}
	runs, err := ReadMutantBase(*f.base)
	if err != nil {
		t.Fatal(err)
	}
	lines, v := sweep(runs)
	if runs == nil {
		body := strings.Join(lines, "\n") + "\n"
		if err := os.WriteFile(*f.record, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("%d runs, digest %x", len(lines), sha256.Sum256([]byte(body)))
		return
	}
	b, _ := json.Marshal(v)
	if err := os.WriteFile(*f.out, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// CheckMutantSweepReplays is a target's test of its TestMutantSweep: its
// runs recorded with no mutant on (sweep with a nil base), swept again
// against their own record, survive with no trace changed, and against a
// record without the first findings' keys they are a kill at that run.
// It is the target's side of MutantSweep (how MutantSweep judges is
// TestMutantSweepStopsAtTheFirstNewKey): its runs replay byte for byte.
func CheckMutantSweepReplays(t testing.TB, sweep func(base map[string]string) ([]string, MutantVerdict)) {
	t.Helper()
	lines, _ := sweep(nil)
	file := filepath.Join(t.TempDir(), "base.tsv")
	if _, v := sweep(writeBase(t, file, lines)); v.Killed || v.Runs != len(lines) || v.Traced != 0 {
		t.Fatalf("%d runs against their own record: %+v", len(lines), v)
	}
	hit := slices.IndexFunc(lines, func(l string) bool { return !strings.HasSuffix(l, "\t") })
	if hit < 0 {
		t.Fatal("no run with a finding to take away")
	}
	tampered := slices.Clone(lines)
	tampered[hit] = lines[hit][:strings.LastIndex(lines[hit], "\t")+1]
	if _, v := sweep(writeBase(t, file, tampered)); !v.Killed || v.Runs != hit+1 {
		t.Fatalf("against a record without run %d's keys (%q): %+v", hit, lines[hit], v)
	}
}

// writeBase writes lines to file and reads them back as a base.
func writeBase(t testing.TB, file string, lines []string) map[string]string {
	t.Helper()
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	base, err := ReadMutantBase(file)
	if err != nil {
		t.Fatal(err)
	}
	return base
}
