package main

import (
	"strings"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/run"
	"github.com/spf13/cobra"
)

// Shell completion: cobra's `simrun completion bash|zsh|fish|powershell`
// prints the script (see its --help); registerCompletions adds the values
// of simrun's own flags, so that `--scenario <TAB>` lists the families.

// completeFlagValues registers the flag value completions of every
// subcommand of root.
func completeFlagValues(root *cobra.Command) {
	for _, cmd := range root.Commands() {
		registerCompletions(cmd)
	}
}

// registerCompletions completes --scenario, --strategy and --mutant on cmd,
// those of them it has.
func registerCompletions(cmd *cobra.Command) {
	values := map[string]func() []string{
		"scenario": func() []string {
			names := []string{}
			for _, f := range plan.Families() {
				names = append(names, f.Name)
			}
			if cmd.Name() == "run" {
				names = append(names, "all")
			}
			return names
		},
		"strategy": func() []string {
			switch cmd.Name() {
			case "run":
				return []string{"random", "pct", "guided", "portfolio"}
			case "gate":
				return []string{"random+pct", "portfolio"}
			}
			return []string{"random", "pct"}
		},
		"mutant": mutantNames,
	}
	for _, flag := range []string{"scenario", "strategy", "mutant"} {
		if cmd.Flags().Lookup(flag) == nil {
			continue
		}
		list := values[flag]
		_ = cmd.RegisterFlagCompletionFunc(flag, func(_ *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
			var out []string
			for _, v := range list() {
				if strings.HasPrefix(v, prefix) {
					out = append(out, v)
				}
			}
			return out, cobra.ShellCompDirectiveNoFileComp
		})
	}
}

// mutantNames lists the catalogued mutants --mutant accepts.
func mutantNames() []string { return run.MutantNames() }

// validMutant refuses a --mutant that is not catalogued.
func validMutant(name string) error {
	if name == "" {
		return nil
	}
	names := mutantNames()
	for _, n := range names {
		if n == name {
			return nil
		}
	}
	return usagef("unknown mutant %q: want one of %s", name, strings.Join(names, ", "))
}
