package mutation

import (
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// foreign is a package of another module: its schema (SchemaOptions.Local)
// cannot import podsim's guards and declares its own (GuardFile).
const foreign = `package foreign

func F(a, b int, on bool) (int, bool) {
	if a < b && on {
		g(&a)
	}
	x := a - b
	x++
	return x, a == b
}

func g(p *int) {
	*p += 10
}

func Named(a int) (n int) {
	n = a % 7
	return
}
`

// foreignMain prints F and Named over a grid, one line per implementation:
// with argument "schema" the schema build's, else the original's and then
// every applied mutant's (packages v0, v1, ...).
const foreignMain = `package main

import (
	"fmt"
	"os"
	"strings"

%s)

type impl struct {
	f     func(int, int, bool) (int, bool)
	named func(int) int
}

func line(i impl) string {
	var b strings.Builder
	for _, a := range []int{-1, 1, 2, 3, 9} {
		for _, c := range []int{-1, 1, 2, 3} {
			for _, on := range []bool{false, true} {
				x, eq := i.f(a, c, on)
				fmt.Fprintf(&b, "%%d,%%v ", x, eq)
			}
		}
		fmt.Fprintf(&b, "%%d ", i.named(a))
	}
	return b.String()
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "schema" {
		fmt.Println(line(impl{schema.F, schema.Named}))
		return
	}
	for _, i := range []impl{%s} {
		fmt.Println(line(i))
	}
}
`

// TestLocalSchemaInAForeignPackage: a schema written with local guards
// and its GuardFile compile in a package of another module (no import of
// podsim); with no mutant on (PODSIM_MUTANT unset, empty, not a number or
// a number no mutant has) it computes what the original does, and with
// mutant i on exactly what the source with mutant i applied computes —
// each of which differs from the original, so each guard switches its own
// mutant and no other.
func TestLocalSchemaInAForeignPackage(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	ms, err := Find("foreign.go", []byte(foreign))
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]int, len(ms))
	for i := range ids {
		ids[i] = i
	}
	schema, err := SchemaWith([]byte(foreign), ms, ids, SchemaOptions{Local: true})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(schema), "import") || strings.Contains(string(schema), ActivePath) {
		t.Fatalf("a local schema imports something:\n%s", schema)
	}
	if _, err := parser.ParseFile(token.NewFileSet(), "foreign.go", schema, 0); err != nil {
		t.Fatalf("local schema does not parse: %v\n%s", err, schema)
	}
	dir := t.TempDir()
	write := func(rel string, b []byte) {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", []byte("module example.com/foreign\n\ngo 1.22\n"))
	write("schema/foreign.go", schema)
	write("schema/zz_guards.go", GuardFile("foreign"))
	write("v/foreign.go", []byte(foreign))
	imports := "\tschema \"example.com/foreign/schema\"\n\tv \"example.com/foreign/v\"\n"
	impls := "{v.F, v.Named}"
	for i, m := range ms {
		write(fmt.Sprintf("v%d/foreign.go", i), m.Apply([]byte(foreign)))
		imports += fmt.Sprintf("\tv%d \"example.com/foreign/v%d\"\n", i, i)
		impls += fmt.Sprintf(", {v%d.F, v%d.Named}", i, i)
	}
	write("main.go", []byte(fmt.Sprintf(foreignMain, imports, impls)))
	bin := filepath.Join(dir, "foreign.bin")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir, build.Env = dir, append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("the schema and its guard file do not compile in a foreign package: %v\n%s", err, out)
	}
	run := func(env string, args ...string) []string {
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), env)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s %v: %v", env, args, err)
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		for i := range lines {
			lines[i] = strings.TrimSpace(lines[i])
		}
		return lines
	}
	lines := run("PODSIM_MUTANT=")
	if len(lines) != len(ms)+1 {
		t.Fatalf("%d lines for %d mutants", len(lines), len(ms))
	}
	original := lines[0]
	for _, env := range []string{"PODSIM_MUTANT=", "PODSIM_MUTANT=x", "PODSIM_MUTANT=-2", fmt.Sprintf("PODSIM_MUTANT=%d", len(ms))} {
		if got := run(env, "schema")[0]; got != original {
			t.Errorf("%s: the schema build differs from the original:\n%s\n%s", env, got, original)
		}
	}
	for i, m := range ms {
		applied := lines[i+1]
		if applied == original {
			t.Errorf("mutant %d (%s) computes what the original does: the grid cannot tell", i, m)
		}
		if got := run(fmt.Sprintf("PODSIM_MUTANT=%d", i), "schema")[0]; got != applied {
			t.Errorf("mutant %d (%s) on: the schema build computes\n%s\nthe applied mutant\n%s", i, m, got, applied)
		}
	}
}
