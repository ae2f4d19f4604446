// Package drift renders Go declarations in a canonical one-line form, for
// the tests that guard go:linkname targets against drift: they parse the
// upstream file of the kubelet module in use and compare its declarations,
// token for token, with the ones the linkname side declares.
package drift

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// UpstreamFile is rel (a slash path) inside the module cache's copy of
// the k8s.io/kubernetes module this module builds against.
func UpstreamFile(t testing.TB, rel string) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "k8s.io/kubernetes").Output()
	if err != nil {
		t.Fatalf("go list -m k8s.io/kubernetes: %v", err)
	}
	return filepath.Join(strings.TrimSpace(string(out)), filepath.FromSlash(rel))
}

// File is a parsed source file.
type File struct {
	t    testing.TB
	fset *token.FileSet
	*ast.File
}

// Parse parses path (or src, if not nil, under the name path).
func Parse(t testing.TB, path string, src any) File {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, 0)
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	return File{t: t, fset: fset, File: f}
}

// Func is the canonical form of a function type: parameter and result
// types only, one per field, the first skip parameters dropped (a method
// pulled by linkname takes its receiver as its first parameter).
func (f File) Func(ft *ast.FuncType, skip int) string {
	flat := func(fl *ast.FieldList, skip int) *ast.FieldList {
		if fl == nil {
			return nil
		}
		out := &ast.FieldList{}
		for _, fd := range fl.List {
			for range max(len(fd.Names), 1) {
				out.List = append(out.List, &ast.Field{Type: fd.Type})
			}
		}
		out.List = out.List[min(skip, len(out.List)):]
		return out
	}
	return f.render(&ast.FuncType{Params: flat(ft.Params, skip), Results: flat(ft.Results, 0)})
}

// Method is the canonical form of the method name declared in the file,
// receiver type first: "(*manager) func(context.Context, bool) int". It is
// "" when the file declares no such method.
func (f File) Method(name string) string {
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv != nil && len(fd.Recv.List) == 1 && fd.Name.Name == name {
			return "(" + f.render(fd.Recv.List[0].Type) + ") " + f.Func(fd.Type, 0)
		}
	}
	return ""
}

// MethodSet is the canonical form of an interface's methods, sorted by
// name (the order calls index them by).
func (f File) MethodSet(it *ast.InterfaceType) string {
	var methods []string
	for _, m := range it.Methods.List {
		methods = append(methods, m.Names[0].Name+strings.TrimPrefix(f.Func(m.Type.(*ast.FuncType), 0), "func"))
	}
	slices.Sort(methods)
	return strings.Join(methods, "; ")
}

func (f File) render(n ast.Node) string {
	f.t.Helper()
	var b bytes.Buffer
	if err := printer.Fprint(&b, f.fset, n); err != nil {
		f.t.Fatal(err)
	}
	return strings.Join(strings.Fields(b.String()), " ")
}
