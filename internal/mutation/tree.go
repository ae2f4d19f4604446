package mutation

import (
	"fmt"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Schema builds of a tree's files: the guards' file of each package, the
// schema of each file with its live mutants, and the mutants whose guard
// the compiler refused (realrun mutation builds the real targets' trees
// this way).

// WriteGuards writes the guards' file (GuardFile) into every
// directory of the target's files, in the package their sources declare.
func WriteGuards(tree string, srcs map[string][]byte, files []string) error {
	pkgs, err := guardPackages(srcs, files)
	if err != nil {
		return err
	}
	for _, dir := range slices.Sorted(maps.Keys(pkgs)) {
		if err := os.WriteFile(filepath.Join(tree, dir, "zz_podsim_mutants.go"), GuardFile(pkgs[dir]), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// guardPackages maps each directory of files to the package its files
// declare; two packages in one directory is an error.
func guardPackages(srcs map[string][]byte, files []string) (map[string]string, error) {
	pkgs := map[string]string{}
	for _, f := range files {
		af, err := parser.ParseFile(token.NewFileSet(), f, srcs[f], parser.PackageClauseOnly)
		if err != nil {
			return nil, err
		}
		dir, name := path.Dir(f), af.Name.Name
		if old, ok := pkgs[dir]; ok && old != name {
			return nil, fmt.Errorf("%s is package %s, another file of %s package %s", f, name, dir, old)
		}
		pkgs[dir] = name
	}
	return pkgs, nil
}

// WriteSchemas writes each file's schema with its live mutants, each
// switched on by its number.
func WriteSchemas(tree string, srcs map[string][]byte, files []string, live []Mutant) error {
	for _, f := range files {
		var ms []Mutant
		var ids []int
		for _, m := range live {
			if m.File == f {
				ms, ids = append(ms, m), append(ids, m.Index)
			}
		}
		schema, err := SchemaWith(srcs[f], ms, ids, SchemaOptions{Local: true})
		if err != nil {
			return err
		}
		file := filepath.Join(tree, f)
		os.Remove(file) // the mirror's copy may be read-only
		if err := os.WriteFile(file, schema, 0o644); err != nil {
			return err
		}
	}
	return nil
}

var schemaError = regexp.MustCompile(`(?m)([\w.-]+\.go):(\d+):\d+: (.*)$`)

// Refuse marks refused the live mutants whose lines the compiler's output
// names (in their file); it returns how many it marked.
func Refuse(out []byte, live []Mutant, refused map[int]string) int {
	n := 0
	for _, e := range schemaError.FindAllStringSubmatch(string(out), -1) {
		line, _ := strconv.Atoi(e[2])
		for _, m := range live {
			if _, gone := refused[m.Index]; !gone && filepath.Base(m.File) == e[1] && m.Line <= line && line <= m.Line+strings.Count(m.Old, "\n") {
				refused[m.Index] = e[3]
				n++
			}
		}
	}
	return n
}
