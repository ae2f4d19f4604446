package main

import (
	"flag"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/podsim/podsim/guided"
)

// commandsOf are the commands a flag is for, where it is not for all: one
// given to another command is refused rather than ignored.
var commandsOf = map[string][]string{
	"input":        {"replay", "shrink"},
	"guided":       {"gate"},
	"rerun-corpus": {"run"},
	"strategy":     {"run"},
	"corpus":       {"run", "gate"},
}

// checkOnly refuses a flag of fs given to a command it is not for.
func checkOnly(o options, fs *flag.FlagSet) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		if cmds, ok := commandsOf[f.Name]; ok && !slices.Contains(cmds, o.command) && err == nil {
			err = fmt.Errorf("--%s is not a flag of %s (it is for %s)", f.Name, o.command, orList(cmds))
		}
	})
	return err
}

func orList(xs []string) string {
	if len(xs) == 1 {
		return xs[0]
	}
	return fmt.Sprintf("%s and %s", xs[0], xs[1])
}

// absPaths makes --out and --corpus absolute: the test binary runs in the
// module's directory, realrun wherever it was started.
func absPaths(o *options) error {
	for _, p := range []*string{&o.out, &o.corpus} {
		if *p == "" {
			continue
		}
		abs, err := filepath.Abs(*p)
		if err != nil {
			return err
		}
		*p = abs
	}
	return nil
}

// runArgs are the test binary's flags naming replay's or shrink's run: a
// seed, or a guided run's input token (checked here, so a token cut short
// by the shell is one line and exit 2).
func runArgs(o options) ([]string, error) {
	switch {
	case o.input != "" && o.seed != "":
		return nil, fmt.Errorf("%s takes --seed or --input, not both", o.command)
	case o.input != "":
		if _, err := guided.ParseToken(o.input); err != nil {
			return nil, fmt.Errorf("--input: %v", err)
		}
		return []string{"-shrink.input", o.input}, nil
	}
	if _, err := strconv.ParseUint(o.seed, 10, 64); err != nil {
		return nil, fmt.Errorf("%s needs --seed N (a non-negative integer) or --input TOKEN, got --seed %q", o.command, o.seed)
	}
	return []string{"-shrink.seed", o.seed}, nil
}
