package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/podsim/podsim/realkubelet/cmd/realrun/mutreport"
)

// report writes mutation.json and mutation.txt and prints one of them.
func (r *mutationRun) report(ms []mutreport.Mutant, found, logging int, interrupted bool) error {
	rep := mutreport.Report{Code: r.t.label(), Files: r.t.files, Tree: r.t.tree(), Families: len(r.t.families), Start: r.o.start, Seeds: r.o.seeds,
		Modes: r.o.modes, Logind: r.o.logind, LogindDelay: r.o.logindDelay, Guided: r.o.guided, Found: found, Logging: logging, Interrupted: interrupted, Mutants: ms}
	if r.o.scenario != "all" {
		rep.Families = 1
	}
	rep.Tally()
	b, _ := json.MarshalIndent(rep, "", "  ")
	if err := os.WriteFile(filepath.Join(r.outDir, "mutation.json"), b, 0o644); err != nil {
		return err
	}
	var txt strings.Builder
	mutreport.Print(&txt, rep, r.o.hang.String())
	if err := os.WriteFile(filepath.Join(r.outDir, "mutation.txt"), []byte(txt.String()), 0o644); err != nil {
		return err
	}
	if r.o.json {
		fmt.Println(string(b))
	} else {
		fmt.Print(txt.String())
	}
	progress("results: %s, %s", filepath.Join(r.outDir, "mutation.txt"), filepath.Join(r.outDir, "mutation.json"))
	return nil
}
