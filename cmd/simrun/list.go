package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/podsim/podsim/run"
)

// printMutants is simrun list's mutant section: each catalogued bug the
// gate re-introduces.
func printMutants(stdout io.Writer) {
	fmt.Fprintln(stdout, "mutants (--mutant NAME; docs/bugs.md id, kind, issue, invariants expected to catch it):")
	for _, m := range run.Mutants() {
		fmt.Fprintf(stdout, "  %-4s %-5s %-28s %s\n      %s\n      families: %s\n", m.Name, m.Kind, m.Issue,
			strings.Join(m.Invariants, ","), m.Mutation, strings.Join(m.Families, ", "))
	}
}

// mutantArg is the --mutant part of a reproduce command ("" for none).
// observableArg is --observable-only for a reproduce command, or "".
func observableArg(on bool) string {
	if !on {
		return ""
	}
	return " --observable-only"
}

func mutantArg(name string) string {
	if name == "" {
		return ""
	}
	return " --mutant " + name
}
