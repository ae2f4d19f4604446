package mutation

import (
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const sample = `package p

func f(a, b int, on bool) (int, bool) {
	if a < b && on {
		g(a)
	}
	x := a - b
	x++
	return x, a == b
}

func named(a int) (n int) {
	n = a
	return
}

func g(int) {}

func hook(p *struct{ mutants interface{ Has(int) bool } }) bool {
	if p.mutants.Has(1) {
		return true
	}
	return false
}

func bad() {
	panic("cannot happen")
}

const c = 3 - 1
`

func find(t *testing.T) []Mutant {
	t.Helper()
	ms, err := Find("p.go", []byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

// TestFindEveryOperator: each operator finds its sites, in source order,
// numbered from 0, and leaves bug switches, panics and constants alone.
func TestFindEveryOperator(t *testing.T) {
	var got []string
	for i, m := range find(t) {
		if m.Index != i {
			t.Fatalf("mutant %d has index %d", i, m.Index)
		}
		got = append(got, string(m.Operator)+" "+m.Old+" => "+m.New)
	}
	want := []string{
		"early-return  =>  return 0, false;",
		"negate a < b && on => !(a < b && on)",
		"swap a < b => (b) < (a)",
		"boundary < => <=",
		"remove g(a) => ",
		"swap a - b => (b) - (a)",
		"remove x++ => ",
		"negate == => !=",
		"early-return  =>  return;",
		"remove n = a => ",
		"early-return  =>  return;", // bad: the panic stays, the early return skips it
	}
	if !slices.Equal(got, want) {
		t.Errorf("mutants:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestEveryMutantParses: applied one at a time, every mutant leaves a file
// that parses, and differs from the source.
func TestEveryMutantParses(t *testing.T) {
	for _, m := range find(t) {
		out := m.Apply([]byte(sample))
		if string(out) == sample {
			t.Errorf("%s: no change", m)
		}
		if _, err := parser.ParseFile(token.NewFileSet(), "p.go", out, 0); err != nil {
			t.Errorf("%s: %v", m, err)
		}
	}
}

// TestSchemaHoldsEveryMutant: the schema file parses, imports the guards'
// package, keeps every line where it was, and guards each mutant by its
// number; without mutants the source comes back unchanged.
func TestSchemaHoldsEveryMutant(t *testing.T) {
	ms := find(t)
	ids := make([]int, len(ms))
	for i := range ids {
		ids[i] = 100 + i
	}
	out, err := Schema([]byte(sample), ms, ids)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := parser.ParseFile(token.NewFileSet(), "p.go", out, 0); err != nil {
		t.Fatalf("schema does not parse: %v\n%s", err, out)
	}
	if strings.Count(string(out), "\n") != strings.Count(sample, "\n") {
		t.Errorf("schema moved lines:\n%s", out)
	}
	if !strings.Contains(string(out), ActivePath) {
		t.Error("schema does not import the guards' package")
	}
	for _, id := range ids {
		if !strings.Contains(string(out), "("+itoa(id)) {
			t.Errorf("mutant %d has no guard:\n%s", id, out)
		}
	}
	for _, want := range []string{
		"if !mutationactive.On(104) { g(a) }",
		"mutationactive.Sub(105, a, b)",
		"func() bool { if mutationactive.On(103) { return a <= b }; return func() bool { if mutationactive.On(102) { return (b) < (a) }; return a < b }() }()",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("schema lacks %q:\n%s", want, out)
		}
	}
	same, err := Schema([]byte(sample), nil, nil)
	if err != nil || string(same) != sample {
		t.Errorf("schema of no mutant changed the source (%v)", err)
	}
	if _, err := Schema([]byte(sample), ms, ids[1:]); err == nil {
		t.Error("mismatched ids accepted")
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestKeySurvivesMovedLines: code added above a mutant renumbers it and
// moves its line, and leaves its key; an edit of the mutated text gives a
// new key; identical sites in one file get keys of their own.
func TestKeySurvivesMovedLines(t *testing.T) {
	byKey := func(src string) map[string]Mutant {
		ms, err := Find("p.go", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]Mutant{}
		for _, m := range ms {
			if _, dup := out[m.Key]; dup {
				t.Fatalf("two mutants with key %s", m.Key)
			}
			out[m.Key] = m
		}
		return out
	}
	before := byKey(sample)
	moved := strings.Replace(sample, "package p\n", "package p\n\nfunc h(x int) int {\n\tif x > 1 {\n\t\tg(x)\n\t}\n\treturn x\n}\n", 1)
	after := byKey(moved)
	if len(after) != len(before)+5 {
		t.Fatalf("%d mutants after adding h, %d before", len(after), len(before))
	}
	for k, m := range before {
		n, ok := after[k]
		if !ok || n.Operator != m.Operator || n.Old != m.Old || n.Line != m.Line+7 || n.Index == m.Index {
			t.Errorf("%s (%s) after adding h: %v, %v", k, m, n, ok)
		}
	}
	edited := byKey(strings.Replace(sample, "g(a)", "g(b)", 1))
	for k, m := range before {
		if _, ok := edited[k]; ok == (m.Old == "g(a)") {
			t.Errorf("%s (%s): kept %v after g(a) became g(b)", k, m, ok)
		}
	}
	twice := byKey(strings.Replace(sample, "\t\tg(a)\n", "\t\tg(a)\n\t\tg(a)\n", 1))
	n := 0
	for _, m := range twice {
		if m.Old == "g(a)" {
			n++
		}
	}
	if n != 2 {
		t.Errorf("two identical sites: %d keys", n)
	}
}
