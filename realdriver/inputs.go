package realdriver

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/podsim/podsim/plan"
)

// The per-input base of a mutant's guided sweep. A random seed's base is
// the same seed on the unmutated build; a guided run's input exists only
// in the mutant's loop. So the mutant's sweep writes each run with a
// finding as an input line (WriteInput), and the unmutated build runs
// those inputs again (BaseInputs): a run whose finding keys include one
// the base's run of the same input lacks is a catch, as MutantSweep
// judges a seed.

// InputLine is one guided run with findings: its family, its index in
// the loop, its input token (guided.Input.Token) and its finding keys
// (CLASS/CHECK, UNEXPLAINED/CHECK).
type InputLine struct {
	Family string
	Run    uint64
	Token  string
	Keys   []string
}

// WriteInput writes l as one line of four tab-separated fields: family,
// run, token and the keys joined by commas (a key may hold spaces, as
// the kubelet's "G1 L6"). A field that would break the line is refused.
func WriteInput(w io.Writer, l InputLine) error {
	keys := strings.Join(l.Keys, ",")
	if len(l.Keys) == 0 || slices.ContainsFunc(l.Keys, func(k string) bool { return k == "" || strings.Contains(k, ",") }) ||
		strings.ContainsAny(l.Family+l.Token+keys, "\t\n") || l.Family == "" || l.Token == "" {
		return fmt.Errorf("realdriver: input line %q %d %q %q cannot be written", l.Family, l.Run, l.Token, l.Keys)
	}
	_, err := fmt.Fprintf(w, "%s\t%d\t%s\t%s\n", l.Family, l.Run, l.Token, keys)
	return err
}

// ParseInputLine reads a line WriteInput wrote.
func ParseInputLine(s string) (InputLine, error) {
	parts := strings.Split(s, "\t")
	if len(parts) != 4 || parts[0] == "" || parts[2] == "" || parts[3] == "" {
		return InputLine{}, fmt.Errorf("want family, run, input and keys, got %q", s)
	}
	run, err := strconv.ParseUint(parts[1], 10, 64)
	if err != nil {
		return InputLine{}, fmt.Errorf("run %q: not a number", parts[1])
	}
	return InputLine{Family: parts[0], Run: run, Token: parts[2], Keys: strings.Split(parts[3], ",")}, nil
}

// Catch is an input the base's run lacks keys of.
type Catch struct {
	InputLine
	// Lacks are the keys of the mutant's run the base's run lacks.
	Lacks []string
}

// BaseInputs runs every input line of r with base (this build's finding
// keys for the line's input) and returns the catches in the file's
// order. A malformed line or an error of base stops it, naming the line.
func BaseInputs(r io.Reader, base func(InputLine) ([]string, error)) ([]Catch, error) {
	var out []Catch
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<24)
	for n := 1; sc.Scan(); n++ {
		l, err := ParseInputLine(sc.Text())
		if err != nil {
			return out, fmt.Errorf("line %d: %v", n, err)
		}
		keys, err := base(l)
		if err != nil {
			return out, fmt.Errorf("line %d: %v", n, err)
		}
		if lacks := lacking(l.Keys, keys); len(lacks) > 0 {
			out = append(out, Catch{InputLine: l, Lacks: lacks})
		}
	}
	return out, sc.Err()
}

// lacking are the keys of keys that had lacks, in keys' order (nil for
// none): what a mutant's run found that the base's did not.
func lacking(keys, had []string) []string {
	var out []string
	for _, k := range keys {
		if !slices.Contains(had, k) {
			out = append(out, k)
		}
	}
	return out
}

// FirstCatches is, per family in order of first appearance, the first
// run caught.
func FirstCatches(cs []Catch) []Catch {
	var out []Catch
	for _, c := range cs {
		if !slices.ContainsFunc(out, func(o Catch) bool { return o.Family == c.Family }) {
			out = append(out, c)
		}
	}
	return out
}

// InputFlags are a target's flags for the per-input base: -sweep.inputs
// (its guided TestSweep writes the runs with findings there) and
// -base.inputs (its TestBaseInputs judges such a file).
type InputFlags struct{ sweep, base *string }

// NewInputFlags registers the flags on the command line; a target's test
// package calls it once, in a package-level var.
func NewInputFlags() InputFlags {
	return InputFlags{
		sweep: flag.String("sweep.inputs", "", "TestSweep -sweep.strategy guided: write every run with a finding to this file "+
			"(family, run, input token, finding keys), for TestBaseInputs on another build"),
		base: flag.String("base.inputs", "", "TestBaseInputs: a -sweep.inputs file whose inputs to run on this build "+
			"(with the sweep's other flags)"),
	}
}

// Open is the -sweep.inputs file, nil without the flag; it is closed when
// t ends.
func (f InputFlags) Open(t *testing.T) io.Writer {
	t.Helper()
	if *f.sweep == "" {
		return nil
	}
	file, err := os.Create(*f.sweep)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := file.Close(); err != nil {
			t.Error(err)
		}
	})
	return file
}

// Judge is a target's TestBaseInputs (skipped without -base.inputs): every
// input of the file, of one of families, runs again on this build with
// run (its finding keys for the family and the input token), and the
// runs whose keys include one this base's run lacks are logged as the
// mutant's catches, with the first of each family.
func (f InputFlags) Judge(t *testing.T, families []plan.Family, run func(plan.Family, string) ([]string, error)) {
	t.Helper()
	if *f.base == "" {
		t.Skip("run with -base.inputs FILE")
	}
	file, err := os.Open(*f.base)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	cs, err := BaseInputs(file, func(l InputLine) ([]string, error) {
		i := slices.IndexFunc(families, func(f plan.Family) bool { return f.Name == l.Family })
		if i < 0 {
			return nil, fmt.Errorf("no family %q on this target", l.Family)
		}
		return run(families[i], l.Token)
	})
	if err != nil {
		t.Fatalf("%s: %v", *f.base, err)
	}
	for _, c := range cs {
		t.Logf("%s run %d: the base lacks %s", c.Family, c.Run, strings.Join(c.Lacks, ","))
	}
	for _, c := range FirstCatches(cs) {
		t.Logf("%s: first run caught %d", c.Family, c.Run)
	}
	if len(cs) == 0 {
		t.Logf("no run caught")
	}
}
