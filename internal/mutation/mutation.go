// Package mutation finds the mutants of Go source files and writes them:
// small, syntactic changes of the kind a mistaken edit makes (a condition
// negated, a boundary shifted, a statement removed, an early return, the
// operands of a comparison or subtraction swapped). A mutant is a text edit
// of one file; the runner (internal/mutation/mutate) builds each one and runs
// a focused sweep (internal/mutation/sweep) against it. Everything here is
// deterministic: the mutants of a file come in source order, each with an
// index that names it again on the next run.
package mutation

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"sort"
)

// Operator is a kind of mutation.
type Operator string

// The operators.
const (
	// Negate negates an if or for condition (`if c` becomes `if !(c)`), or
	// flips == and != anywhere else.
	Negate Operator = "negate"
	// Boundary shifts a comparison's boundary: < and <=, > and >=.
	Boundary Operator = "boundary"
	// Remove removes a statement: a call, an assignment with =, ++ or --,
	// a defer or a go statement.
	Remove Operator = "remove"
	// EarlyReturn returns at once from a function: its zero values, or a
	// bare return for a function without results or with named ones.
	EarlyReturn Operator = "early-return"
	// Swap swaps the operands of an ordered comparison or of - / %.
	Swap Operator = "swap"
)

// Operators lists every operator, in report order.
func Operators() []Operator { return []Operator{Negate, Boundary, Remove, EarlyReturn, Swap} }

// Mutant is one mutation of one file: replace Src[Start:End] by New.
type Mutant struct {
	File     string   `json:"file"` // as given to Find
	Index    int      `json:"index"`
	Operator Operator `json:"operator"`
	Line     int      `json:"line"`
	Col      int      `json:"col"`
	Start    int      `json:"-"`
	End      int      `json:"-"`
	Old      string   `json:"old"` // the text replaced, as in the source
	New      string   `json:"new"`
	// Key names the mutant by what it changes, not where: see Key.
	Key string `json:"key"`
	// The mutant in a schema build (Schema): the source range it guards
	// and how.
	sStart, sEnd int
	guard        guard
}

// ID names the mutant: file, line and index. Code added above it moves
// both; Key does not.
func (m Mutant) ID() string { return fmt.Sprintf("%s:%d#%d", m.File, m.Line, m.Index) }

func (m Mutant) String() string {
	return fmt.Sprintf("%s:%d:%d %s: %s => %s", m.File, m.Line, m.Col, m.Operator, short(m.Old), short(m.New))
}

// Apply returns src with m applied.
func (m Mutant) Apply(src []byte) []byte {
	out := make([]byte, 0, len(src)+len(m.New))
	out = append(out, src[:m.Start]...)
	out = append(out, m.New...)
	return append(out, src[m.End:]...)
}

// Find returns the mutants of one file, in source order (then by
// operator), numbered from 0. Nodes that reach a catalogued-bug switch
// (see Skip) are left alone.
func Find(file string, src []byte) ([]Mutant, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	fd := &finder{fset: fset, file: file, src: src, tf: fset.File(f.Pos())}
	ast.Inspect(f, fd.visit)
	sort.SliceStable(fd.out, func(i, j int) bool {
		if fd.out[i].Start != fd.out[j].Start {
			return fd.out[i].Start < fd.out[j].Start
		}
		return opRank(fd.out[i].Operator) < opRank(fd.out[j].Operator)
	})
	seen := map[string]int{}
	for i := range fd.out {
		m := &fd.out[i]
		m.Index = i
		what := string(m.Operator) + "\x00" + m.Old + "\x00" + m.New
		m.Key = key(file, what, seen[what])
		seen[what]++
	}
	return fd.out, nil
}

// key is a mutant's stable name: "k" and 10 hex digits of the SHA-256 of
// its file, operator, old and new text, and k, the number of earlier
// mutants of the same file with the same operator and text. Lines added or
// removed elsewhere in the file, or in other files, leave it alone, where
// they renumber the mutant (its place in the list) and move its line; an
// edit of the mutated text itself, or a new identical site above it in the
// file, gives it a new key. 40 bits: the keys of a tree are checked unique
// where they are listed (mutate's findAll).
func key(file, what string, k int) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "%s\x00%s\x00%d", file, what, k))
	return "k" + hex.EncodeToString(sum[:5])
}

func opRank(o Operator) int {
	for i, x := range Operators() {
		if x == o {
			return i
		}
	}
	return len(Operators())
}

func short(s string) string {
	const max = 60
	b := []byte(s)
	for i, c := range b {
		if c == '\n' || c == '\t' {
			b[i] = ' '
		}
	}
	if len(b) > max {
		return string(b[:max-3]) + "..."
	}
	return string(b)
}
