package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/podsim/podsim/guided"
	"github.com/podsim/podsim/realkubelet/cmd/realrun/toolrun"
)

// The gate's guided tier (--guided N): N runs per family and mode of the
// coverage-guided loop (package guided, loop seed --start) on the
// candidate, and the inputs of its runs with findings run again on the
// base. A seed names the same run on both trees; a guided input exists
// only in the loop that drew it, and the loop steers by the candidate's
// own coverage, so the candidate goes first. A key the base's run of the
// same input lacks is a regression, as for a seed. Fixes are not
// reported for the tier: the base never runs the inputs on which the
// candidate found nothing.
//
// With --corpus DIR the loop starts from corpora grown earlier, on the
// base (realrun run --strategy guided --corpus DIR [--hold]: DIR/plain
// and DIR/hold, one file per family; with --vk, DIR itself): every kept entry runs first, the
// rarest coverage's owners first, then the loop draws its own. On the
// simulated target and the virtual kubelet's work queue, a corpus grown
// on the correct code and run again first found the hard mutants sooner
// than fresh loops (docs/guided.md). The gate copies DIR into its report
// directory and grows the copy; DIR itself is never written.

func isGuided(t tier) bool { return t.Name == "guided" }

// args are the test binary's flags for the tier, besides -gate.out and
// -gate.progress.
func (t tier) args() []string {
	out := slices.Clone(t.Faults)
	if t.Inputs != "" {
		return append(out, "-gate.inputs", t.Inputs)
	}
	out = append(out, "-sweep", strconv.Itoa(t.Seeds), "-sweep.start", strconv.FormatUint(t.Start, 10), "-gate.modes", t.Modes)
	if t.Family != "" {
		out = append(out, "-sweep.family", t.Family)
	}
	if isGuided(t) {
		out = append(out, "-gate.strategy", "guided")
	}
	if t.Corpus != "" {
		out = append(out, "-sweep.corpus", t.Corpus, "-sweep.rerun")
	}
	return out
}

// guidedCorpus gives the guided tier of tiers, if --corpus is set, its
// own copy of the corpora of the tier's modes, under the report
// directory (any copy an earlier gate left there is replaced).
func (g gate) guidedCorpus(tiers []tier) ([]tier, error) {
	i := slices.IndexFunc(tiers, isGuided)
	if i < 0 || g.o.corpus == "" {
		return tiers, nil
	}
	dst, err := filepath.Abs(filepath.Join(g.outDir, "guided-corpus"))
	if err != nil {
		return nil, err
	}
	for _, mode := range strings.Split(tiers[i].Modes, ",") {
		to := corpusOf(g.vk, dst, mode)
		if err := os.RemoveAll(to); err != nil {
			return nil, err
		}
		if err := os.CopyFS(to, os.DirFS(corpusOf(g.vk, g.o.corpus, mode))); err != nil {
			return nil, fmt.Errorf("copying the corpora: %v", err)
		}
	}
	tiers[i].Corpus = dst
	return tiers, nil
}

// checkGuided refuses --guided and --corpus where the gate could not use
// them: a negative budget, a corpus without the tier, either with
// --mutants, and a corpus directory without a corpus of the gate's
// families in each of its modes (with the command that grows one).
func checkGuided(o options) error {
	switch {
	case o.guided < 0:
		return fmt.Errorf("--guided must not be negative, got %d", o.guided)
	case o.mutants && o.guided > 0:
		return fmt.Errorf("--guided is for gating a --kubernetes tree, not --mutants")
	case o.corpus == "":
		return nil
	case o.guided == 0:
		return fmt.Errorf("--corpus needs --guided N (the guided tier's runs per family and mode)")
	}
	fams := scenarioNames(o)
	if o.scenario != "all" {
		fams = []string{o.scenario}
	}
	for _, mode := range strings.Split(o.modes, ",") {
		dir := corpusOf(o.vk, o.corpus, mode)
		if !slices.ContainsFunc(fams, func(f string) bool { return fileExists(guided.Path(dir, f)) }) {
			flag := map[string]string{"plain": "", "hold": " --hold"}[mode]
			if o.vk {
				flag = " --vk"
			}
			return fmt.Errorf("--corpus %s: no corpus of the gate's families in %s (grow them on the base first: "+
				"realrun run --strategy guided --corpus %s --seeds 20000%s)", o.corpus, dir, o.corpus, flag)
		}
	}
	return nil
}

// corpusOf is where the corpora of one mode are under dir: the kubelet's
// in a directory per wake-up mode (as realrun run --strategy guided
// keeps them), the virtual-kubelet's (one mode) in dir itself.
func corpusOf(vk bool, dir, mode string) string {
	if vk {
		return dir
	}
	return filepath.Join(dir, mode)
}

func fileExists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

// endsOn runs the guided run r (a sweep died in it) again on sd alone,
// through the guided tier t's inputs, in dir: nil if the run ends there.
// A seed's run needs no such check (every tier's seeds ran on the base,
// or on the unmutated build, first); a guided input ran only where it was
// drawn, and a crash both builds share is no regression, no kill.
func endsOn(sweep func(side, tier, string) (map[runKey][]string, error), sd side, t tier, r toolrun.Run, dir string) error {
	file := filepath.Join(dir, "died-input.json")
	b, _ := json.Marshal([]gateRun{{Family: r.Family, Seed: r.Index, Hold: r.Mode == "hold", Input: r.Input}})
	if err := os.WriteFile(file, b, 0o644); err != nil {
		return err
	}
	t.Corpus, t.Inputs = "", file
	_, err := sweep(sd, t, filepath.Join(dir, "died-input-runs.json"))
	return err
}
