package workers

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The seam (docs/design.md, "The seam"): every file of the package except
// runtime_real.go reaches concurrency, time and chance only through Runtime,
// so the simulated runtime sees every scheduling point. This test enforces it
// syntactically with go/parser and go/ast.

// realRuntimeFile is the one file allowed to use the real primitives.
const realRuntimeFile = "runtime_real.go"

// forbiddenImports may not be imported at all.
var forbiddenImports = []string{"context", "math/rand", "math/rand/v2", "sync/atomic", "unsafe"}

// forbiddenSelectors are package members that may not be referenced.
var forbiddenSelectors = map[string][]string{
	"sync": {"Mutex", "RWMutex", "Cond", "WaitGroup", "Once", "OnceFunc", "OnceValue", "OnceValues", "Map", "Pool"},
	"time": {"Now", "Since", "Until", "After", "AfterFunc", "Sleep", "NewTimer", "NewTicker", "Tick"},
}

// archViolations returns one line per forbidden construct in the source,
// as "file:line: what".
func archViolations(fset *token.FileSet, file *ast.File) []string {
	var out []string
	report := func(n ast.Node, format string, args ...any) {
		out = append(out, fmt.Sprintf("%s: %s", fset.Position(n.Pos()), fmt.Sprintf(format, args...)))
	}
	importNames := map[string]string{} // local name → import path
	for _, imp := range file.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		if slices.Contains(forbiddenImports, path) {
			report(imp, "import of %s", path)
		}
		name := filepath.Base(path)
		if path == "math/rand/v2" {
			name = "rand"
		}
		if imp.Name != nil {
			name = imp.Name.Name
		}
		if _, watched := forbiddenSelectors[path]; watched && name == "." {
			report(imp, "dot import of %s", path)
		}
		importNames[name] = path
	}
	ast.Inspect(file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.GoStmt:
			report(n, "go statement")
		case *ast.SendStmt:
			report(n, "channel send")
		case *ast.UnaryExpr:
			if n.Op == token.ARROW {
				report(n, "channel receive")
			}
		case *ast.ChanType:
			report(n, "channel type")
		case *ast.SelectStmt:
			report(n, "select statement")
		case *ast.SelectorExpr:
			if pkg, ok := n.X.(*ast.Ident); ok {
				path := importNames[pkg.Name]
				if slices.Contains(forbiddenSelectors[path], n.Sel.Name) {
					report(n, "use of %s.%s", path, n.Sel.Name)
				}
			}
		}
		return true
	})
	return out
}

// TestArchitecture parses every non-test file of the package but
// runtime_real.go and fails on any forbidden construct.
func TestArchitecture(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") || name == realRuntimeFile {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		file, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range archViolations(fset, file) {
			t.Errorf("%s (only %s may do this; go through Runtime)", v, realRuntimeFile)
		}
		checked++
	}
	if checked < 10 {
		t.Errorf("got %d files checked, want every non-test file of the package", checked)
	}
}

// TestArchitectureCheckerFlagsEveryConstruct proves the checker is not
// vacuous: a snippet holding each forbidden construct is flagged for each.
func TestArchitectureCheckerFlagsEveryConstruct(t *testing.T) {
	const snippet = `package bad

import (
	"context"
	"math/rand"
	r2 "math/rand/v2"
	"sync"
	"sync/atomic"
	t "time"
	. "time"
)

var mu sync.Mutex
var rw sync.RWMutex
var once sync.Once

func f(ch chan int, c *sync.Cond, wg *sync.WaitGroup) {
	go f(nil, nil, nil)
	ch <- 1
	<-ch
	select {}
	_ = make(chan struct{})
	_ = t.Now()
	_ = t.Since(t.Time{})
	t.Sleep(1)
	_ = t.After(1)
	_ = t.AfterFunc(1, nil)
	_ = t.NewTimer(1)
	_ = t.NewTicker(1)
	_ = t.Tick(1)
	_ = context.TODO()
	_ = rand.Intn(1)
	_ = r2.IntN(1)
	_ = atomic.AddInt32(nil, 1)
}
`
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "bad.go", snippet, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(archViolations(fset, file), "\n")
	want := []string{
		"import of context", "import of math/rand", "import of math/rand/v2", "import of sync/atomic",
		"dot import of time",
		"use of sync.Mutex", "use of sync.RWMutex", "use of sync.Once", "use of sync.Cond", "use of sync.WaitGroup",
		"go statement", "channel send", "channel receive", "select statement", "channel type",
		"use of time.Now", "use of time.Since", "use of time.Sleep", "use of time.After", "use of time.AfterFunc",
		"use of time.NewTimer", "use of time.NewTicker", "use of time.Tick",
	}
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("checker missed %q; got:\n%s", w, got)
		}
	}
	clean := `package good

import (
	"sync"
	"time"
)

var _ sync.Locker
var _ time.Duration = time.Second

func g(t time.Time) bool { return t.IsZero() }
`
	file, err = parser.ParseFile(fset, "good.go", clean, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	if v := archViolations(fset, file); len(v) != 0 {
		t.Errorf("clean snippet: got %v, want no violation", v)
	}
}
