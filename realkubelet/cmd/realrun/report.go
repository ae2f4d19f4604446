package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// printTable prints the gate's verdict, regressions (with shrunk scripts
// and the reproduce command) and fixes.
func printTable(w io.Writer, r gateReport, outDir string) {
	fmt.Fprintf(w, "gate: candidate %s (%s) against %s\n", r.Candidate, r.Layout, r.Base)
	if r.Logind {
		fmt.Fprintln(w, "      logind restarts under the node shutdown manager before each shutdown event (--logind-restart)")
	}
	if r.LogindDelay {
		fmt.Fprintln(w, "      logind's inhibit delay starts short of the node shutdown manager's groups (--logind-delay)")
	}
	for _, t := range r.Tiers {
		fams := fmt.Sprintf("%d families", r.Families)
		if t.Tier == "deep" || r.Families == 1 {
			fams = t.Family
		}
		if t.Tier == "guided" {
			from := "a fresh loop"
			if r.Corpus != "" {
				from = "the corpora of " + r.Corpus + " first"
			}
			fmt.Fprintf(w, "      %-8s %s × %d runs (loop seed %d, %s) × modes %s = %d runs on the candidate; "+
				"the base runs again those with findings (regressions only)\n",
				t.Tier+":", fams, t.Runs, t.LoopSeed, from, strings.Join(t.Modes, ","), t.RunsPerSide)
			continue
		}
		fmt.Fprintf(w, "      %-8s %s × seeds %d..%d × modes %s = %d runs per side\n",
			t.Tier+":", fams, t.FirstSeed, t.LastSeed, strings.Join(t.Modes, ","), t.RunsPerSide)
	}
	section := func(title string, cs []change) {
		fmt.Fprintf(w, "\n%s: %d\n", title, len(cs))
		if len(cs) == 0 {
			return
		}
		// One row per (tier, mode, family, key): how many seeds, the first
		// one and its reproduce command; every seed is in gate.json.
		fmt.Fprintf(w, "%-7s %-5s %-32s %-20s %6s %10s  %s\n", "tier", "mode", "family", "finding", "runs", "first", "reproduce (the first)")
		for i := 0; i < len(cs); {
			n := 1
			for j := i + 1; j < len(cs); j++ {
				if sameBlock(cs[j], cs[i]) && cs[j].Key == cs[i].Key {
					n++
				}
			}
			fmt.Fprintf(w, "%-7s %-5s %-32s %-20s %6d %10s  %s\n", cs[i].Tier, cs[i].Mode, cs[i].Family, cs[i].Key, n, runName(cs[i]), cs[i].Reproduce)
			i = nextGroup(cs, i)
		}
	}
	section("REGRESSIONS (new on the candidate)", r.Regressions)
	for _, c := range r.Regressions {
		if c.Script != "" {
			fmt.Fprintf(w, "\n--- shrunk: %s %s (%s, %s tier), %s → %s\n%s\n", c.Family, runName(c), c.Mode, c.Tier, c.Key, c.File, scriptOnly(c.Script))
		}
	}
	section("FIXES (gone on the candidate)", r.Fixes)
	if r.Died != "" {
		compared := "no run compared"
		if len(r.ComparedBeforeDeath) > 0 {
			compared = "the tiers it finished before, compared above: " + strings.Join(r.ComparedBeforeDeath, ", ")
		}
		fmt.Fprintf(w, "\nTHE CANDIDATE'S SWEEP DIED where the base's ended (%s): %s\n", compared, r.Died)
	}
	fmt.Fprintf(w, "\nverdict: %s (%d regressions, %d fixes); report: %s\n", strings.ToUpper(r.Verdict),
		len(r.Regressions), len(r.Fixes), filepath.Join(outDir, "gate.json"))
}

// runName names c's run: "seed 7", or "run 7" for a guided run (its index
// in the loop; the reproduce command carries its input).
func runName(c change) string {
	if c.Input != "" {
		return fmt.Sprintf("run %d", c.Seed)
	}
	return fmt.Sprintf("seed %d", c.Seed)
}

// sameBlock: a and b are of one (tier, mode, family) block of the table.
// Changes are sorted by mode, family, seed, and a deep tier's seeds follow
// the shallow tier's, so a block's changes are contiguous.
func sameBlock(a, b change) bool { return a.Mode == b.Mode && a.Family == b.Family && a.Tier == b.Tier }

// nextGroup is the index after i of the first change of another (tier,
// mode, family, key) not yet printed.
func nextGroup(cs []change, i int) int {
	for j := i + 1; j < len(cs); j++ {
		if !sameBlock(cs[j], cs[i]) {
			return firstUnprinted(cs, i, j)
		}
	}
	return firstUnprinted(cs, i, len(cs))
}

// firstUnprinted: within the block [start, end), the first change after
// cs[i] whose key no earlier change of the block has.
func firstUnprinted(cs []change, i, end int) int {
	start := i
	for start > 0 && sameBlock(cs[start-1], cs[i]) {
		start--
	}
	for j := i + 1; j < end; j++ {
		seen := false
		for k := start; k < j; k++ {
			seen = seen || cs[k].Key == cs[j].Key
		}
		if !seen {
			return j
		}
	}
	return end
}

// scriptOnly is a shrunk output without its trace lines.
func scriptOnly(s string) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "#   ") || l == "# trace:" {
			continue
		}
		keep = append(keep, "  "+l)
	}
	return strings.Join(keep, "\n")
}
