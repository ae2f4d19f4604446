package mutation

import (
	"go/ast"
	"go/token"
	"strings"
)

// finder collects the mutants of one parsed file.
type finder struct {
	fset  *token.FileSet
	tf    *token.File
	file  string
	src   []byte
	conds map[ast.Expr]bool // if and for conditions: Negate covers them whole
	out   []Mutant
}

// Skip reports whether a node reaches a switch of a catalogued bug (an
// identifier mutants, mutant, Bugs or bugs: workers' p.mutants.Has(mutant.X),
// the world's w.Bugs.X) or only feeds the test harness (mark, markAdmission
// and the like: coverage marks; violate and noAssertions, the internal invariants and assertions,
// off in the score).
// Mutating a bug switch switches a known bug on or off, the regression
// gate's business; the others cannot change a verdict by construction.
func Skip(n ast.Node) bool {
	found := false
	ast.Inspect(n, func(m ast.Node) bool {
		if id, ok := m.(*ast.Ident); ok {
			switch id.Name {
			case "mutants", "mutant", "Bugs", "bugs", "violate", "noAssertions":
				found = true
			}
			found = found || strings.HasPrefix(id.Name, "mark") // mark, markAdmission: coverage marks only
		}
		return !found
	})
	return found
}

// renderOnly names the methods that only render a value for people
// (messages, traces); they are not mutated.
var renderOnly = map[string]bool{"String": true, "Error": true, "GoString": true}

func (f *finder) off(p token.Pos) int { return f.tf.Offset(p) }

func (f *finder) text(from, to token.Pos) string { return string(f.src[f.off(from):f.off(to)]) }

// add records a mutant: the text edit from..to => repl, and its guard in a
// schema build over the range of node n.
func (f *finder) add(op Operator, from, to token.Pos, repl string, n ast.Node, g guard) {
	pos := f.fset.Position(from)
	m := Mutant{File: f.file, Operator: op, Line: pos.Line, Col: pos.Column,
		Start: f.off(from), End: f.off(to), Old: f.text(from, to), New: repl, guard: g}
	m.sStart, m.sEnd = m.Start, m.End
	if n != nil {
		m.sStart, m.sEnd = f.off(n.Pos()), f.off(n.End())
	}
	f.out = append(f.out, m)
}

func (f *finder) visit(n ast.Node) bool {
	if f.conds == nil {
		f.conds = map[ast.Expr]bool{}
	}
	switch n := n.(type) {
	case *ast.GenDecl:
		return n.Tok != token.CONST && n.Tok != token.TYPE // constant contexts
	case *ast.FuncDecl:
		if n.Body == nil || (n.Recv != nil && renderOnly[n.Name.Name]) {
			return false
		}
		f.earlyReturn(n.Type, n.Body)
	case *ast.FuncLit:
		f.earlyReturn(n.Type, n.Body)
	case *ast.IfStmt:
		f.negate(n.Cond)
	case *ast.ForStmt:
		if n.Cond != nil {
			f.negate(n.Cond)
		}
	case *ast.BinaryExpr:
		f.binary(n)
	case *ast.BlockStmt:
		f.removeAll(n.List)
	case *ast.CaseClause:
		f.removeAll(n.Body)
	case *ast.CommClause:
		f.removeAll(n.Body)
	}
	return true
}

func (f *finder) negate(cond ast.Expr) {
	f.conds[cond] = true
	if Skip(cond) {
		return
	}
	f.add(Negate, cond.Pos(), cond.End(), "!("+f.text(cond.Pos(), cond.End())+")", nil, guard{kind: gXor})
}

// arith names the schema helpers of the arithmetic swaps (package
// internal/mutation/active).
var arith = map[token.Token]string{token.SUB: "Sub", token.QUO: "Quo", token.REM: "Rem"}

var boundaryOf = map[token.Token]token.Token{token.LSS: token.LEQ, token.LEQ: token.LSS, token.GTR: token.GEQ, token.GEQ: token.GTR}

func (f *finder) binary(b *ast.BinaryExpr) {
	if Skip(b) {
		return
	}
	opEnd := b.OpPos + token.Pos(len(b.Op.String()))
	switch b.Op {
	case token.EQL, token.NEQ:
		if f.conds[b] {
			return // the condition's negation is the same mutant
		}
		flip := map[token.Token]string{token.EQL: "!=", token.NEQ: "=="}[b.Op]
		f.add(Negate, b.OpPos, opEnd, flip, b, guard{kind: gXor})
	case token.LSS, token.LEQ, token.GTR, token.GEQ:
		alt := f.text(b.Pos(), b.OpPos) + boundaryOf[b.Op].String() + f.text(opEnd, b.End())
		f.add(Boundary, b.OpPos, opEnd, boundaryOf[b.Op].String(), b, guard{kind: gBoolAlt, alt: alt})
		f.swap(b)
	case token.SUB, token.QUO, token.REM:
		f.swap(b)
	}
}

func (f *finder) swap(b *ast.BinaryExpr) {
	_, xLit := b.X.(*ast.BasicLit)
	_, yLit := b.Y.(*ast.BasicLit)
	if xLit && yLit {
		return
	}
	x, y := f.text(b.X.Pos(), b.X.End()), f.text(b.Y.Pos(), b.Y.End())
	if x == y {
		return // a - a swapped is a - a
	}
	swapped := "(" + y + ") " + b.Op.String() + " (" + x + ")"
	g := guard{kind: gBoolAlt, alt: swapped}
	if fn, ok := arith[b.Op]; ok {
		g = guard{kind: gArith, fn: fn, x: [2]int{f.off(b.X.Pos()), f.off(b.X.End())},
			y: [2]int{f.off(b.Y.Pos()), f.off(b.Y.End())}}
	}
	f.add(Swap, b.X.Pos(), b.Y.End(), swapped, nil, g)
}

func (f *finder) removeAll(list []ast.Stmt) {
	for _, s := range list {
		if removable(s) && !Skip(s) {
			f.add(Remove, s.Pos(), s.End(), "", nil, guard{kind: gRemove})
		}
	}
}

// removable: statements that do something and declare nothing. A call of
// panic is not removed: it guards a case that cannot happen, and without it
// the function often no longer compiles (missing return).
func removable(s ast.Stmt) bool {
	switch s := s.(type) {
	case *ast.ExprStmt:
		if call, ok := s.X.(*ast.CallExpr); ok {
			if id, ok := call.Fun.(*ast.Ident); ok && id.Name == "panic" {
				return false
			}
		}
		return true
	case *ast.IncDecStmt, *ast.DeferStmt, *ast.GoStmt, *ast.SendStmt:
		return true
	case *ast.AssignStmt:
		return s.Tok != token.DEFINE
	}
	return false
}

// earlyReturn makes a function return its zero values at once. A body
// that is empty or starts with a return already is left alone.
func (f *finder) earlyReturn(ft *ast.FuncType, body *ast.BlockStmt) {
	if len(body.List) == 0 || Skip(body) {
		return
	}
	if _, ok := body.List[0].(*ast.ReturnStmt); ok {
		return
	}
	ret := "return"
	if res := ft.Results; res != nil && len(res.List) > 0 && len(res.List[0].Names) == 0 {
		var zs []string
		for _, field := range res.List {
			zs = append(zs, f.zero(field.Type))
		}
		ret += " " + strings.Join(zs, ", ")
	}
	at := body.Lbrace + 1
	f.add(EarlyReturn, at, at, " "+ret+";", nil, guard{kind: gReturn, alt: ret})
}

// zero is the zero value of a result type, written in the source's terms.
func (f *finder) zero(t ast.Expr) string {
	if id, ok := t.(*ast.Ident); ok {
		switch id.Name {
		case "bool":
			return "false"
		case "string":
			return `""`
		case "error", "any":
			return "nil"
		case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64",
			"float32", "float64", "byte", "rune", "uintptr":
			return "0"
		}
	}
	switch t := t.(type) {
	case *ast.StarExpr, *ast.MapType, *ast.FuncType, *ast.ChanType, *ast.InterfaceType:
		return "nil"
	case *ast.ArrayType:
		if t.Len == nil {
			return "nil"
		}
	}
	return "*new(" + f.text(t.Pos(), t.End()) + ")"
}
