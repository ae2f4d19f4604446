package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The differential gate: the same families, seeds and wake-up modes on a
// base and a candidate tree. A finding key ("CLASS INVARIANT") present on
// the candidate and absent on the base for the same (family, seed, mode)
// is a regression and fails the gate; one present on the base only is
// reported as a fix.

// runKey is one run of the sweep.
type runKey struct {
	Family string
	Seed   uint64
	Hold   bool
}

// gateRun is realkubelet.GateRun as TestGateSweep writes it.
type gateRun struct {
	Family string   `json:"family"`
	Seed   uint64   `json:"seed"`
	Hold   bool     `json:"hold"`
	Keys   []string `json:"keys"`
}

// change is one finding key that appeared (regression) or disappeared
// (fix) on the candidate.
type change struct {
	Family    string `json:"family"`
	Seed      uint64 `json:"seed"`
	Mode      string `json:"mode"`
	Key       string `json:"key"`
	Reproduce string `json:"reproduce"`
	Script    string `json:"script,omitempty"`
	File      string `json:"script_file,omitempty"`
}

// gateReport is what the gate prints (table or --json).
type gateReport struct {
	Base        string   `json:"base"`
	Candidate   string   `json:"candidate"`
	Layout      string   `json:"candidate_layout"`
	Families    int      `json:"families"`
	Seeds       int      `json:"seeds_per_family"`
	Start       uint64   `json:"start"`
	Modes       []string `json:"modes"`
	RunsPerSide int      `json:"runs_per_side"`
	Regressions []change `json:"regressions"`
	Fixes       []change `json:"fixes"`
	Verdict     string   `json:"verdict"`
	Timing      timing   `json:"timing_seconds"`
}

// timing is wall time per phase (for the report only; never compared).
type timing struct {
	BuildBase, BuildCandidate, SweepBase, SweepCandidate, Shrink float64
}

// side is one built tree of the gate.
type side struct {
	slot slot
	bin  string
}

func buildSide(o options, root, name, source, moduleDir string, secs *float64) (side, error) {
	t0 := time.Now()
	s, err := prepare(root, name, source, moduleDir)
	if err != nil {
		return side{}, err
	}
	bin, err := s.ready(moduleDir, o.trimpath)
	*secs = time.Since(t0).Seconds()
	progress("built %s (%s) in %.0fs", s.name(), s.layout, *secs)
	return side{s, bin}, err
}

func progress(format string, a ...any) { fmt.Fprintf(os.Stderr, "realrun: "+format+"\n", a...) }

// sweep runs TestGateSweep on one side: every run's finding keys.
func (sd side) sweep(o options, moduleDir, file string, secs *float64) (map[runKey][]string, error) {
	t0 := time.Now()
	args := []string{"-test.run", "^TestGateSweep$", "-test.timeout", "60m", "-sweep", strconv.Itoa(o.seeds),
		"-sweep.start", strconv.FormatUint(o.start, 10), "-gate.modes", o.modes, "-gate.out", file}
	if o.scenario != "all" {
		args = append(args, "-sweep.family", o.scenario)
	}
	cmd := exec.Command(sd.bin, args...)
	cmd.Dir, cmd.Env = moduleDir, sd.slot.goEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("sweep on %s did not complete: %s", sd.slot.name(), firstLines(out, 3))
	}
	*secs = time.Since(t0).Seconds()
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var runs []gateRun
	if err := json.Unmarshal(b, &runs); err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	out := map[runKey][]string{}
	for _, r := range runs {
		out[runKey{r.Family, r.Seed, r.Hold}] = r.Keys
	}
	progress("swept %s in %.0fs: %d runs with findings", sd.slot.name(), *secs, len(runs))
	return out, nil
}

func modeName(hold bool) string {
	if hold {
		return "hold"
	}
	return "plain"
}

// diffRuns lists the keys new on cand (regressions) and gone from base
// (fixes), ordered by mode, family, seed, key.
func diffRuns(base, cand map[runKey][]string) (regs, fixes []change) {
	onlyIn := func(a, b map[runKey][]string) []change {
		var out []change
		for k, keys := range a {
			for _, key := range keys {
				if !slices.Contains(b[k], key) {
					out = append(out, change{Family: k.Family, Seed: k.Seed, Mode: modeName(k.Hold), Key: key})
				}
			}
		}
		slices.SortFunc(out, func(x, y change) int {
			return cmp.Or(cmp.Compare(x.Mode, y.Mode), cmp.Compare(x.Family, y.Family), cmp.Compare(x.Seed, y.Seed), cmp.Compare(x.Key, y.Key))
		})
		return out
	}
	return onlyIn(cand, base), onlyIn(base, cand)
}

// reproduce is the command that replays a run on a tree.
func reproduce(tree string, c change) string {
	s := "realrun replay"
	if tree != "" {
		s += " --kubernetes " + tree
	}
	s += fmt.Sprintf(" --scenario %s --seed %d", c.Family, c.Seed)
	if c.Mode == "hold" {
		s += " --hold"
	}
	return s
}

// shrinkChanges shrinks up to limit regressions, the first of each
// distinct key first, on the candidate, writing each script to outDir.
func shrinkChanges(regs []change, limit int, sd side, moduleDir, outDir string) {
	var order []int
	seen := map[string]bool{}
	for i, c := range regs {
		if !seen[c.Key] {
			seen[c.Key] = true
			order = append(order, i)
		}
	}
	for i := range regs {
		if !slices.Contains(order, i) {
			order = append(order, i)
		}
	}
	for _, i := range order[:min(limit, len(order))] {
		c := &regs[i]
		class, inv, _ := strings.Cut(c.Key, " ")
		if class == "UNEXPLAINED" {
			class = ""
		}
		args := []string{"-test.run", "^TestShrinkSeed$", "-test.timeout", "0", "-shrink.family", c.Family,
			"-shrink.seed", strconv.FormatUint(c.Seed, 10), "-shrink.class", class, "-shrink.invariant", inv}
		if c.Mode == "hold" {
			args = append(args, "-sweep.hold")
		}
		cmd := exec.Command(sd.bin, args...)
		cmd.Dir, cmd.Env = moduleDir, sd.slot.goEnv()
		out, err := cmd.Output()
		if err != nil {
			c.Script = "(shrinking failed: " + firstLines(out, 1) + ")"
			continue
		}
		c.Script = strings.TrimSuffix(strings.TrimSpace(string(out)), "PASS")
		c.File = filepath.Join(outDir, fmt.Sprintf("%s-%d-%s-%s.script", c.Family, c.Seed, c.Mode, strings.ReplaceAll(c.Key, " ", "-")))
		if err := os.WriteFile(c.File, []byte(c.Script), 0o644); err != nil {
			c.File = ""
		}
	}
}

// runGate is `realrun gate --kubernetes DIR [--base ...]`.
func runGate(o options, moduleDir, root string) error {
	if o.mutants {
		return runMutants(o, moduleDir, root)
	}
	rep := newReport(o)
	baseSrc, baseSlot := "", "pinned"
	if o.base != pinned {
		baseSrc, baseSlot = o.base, "base"
	}
	base, err := buildSide(o, root, baseSlot, baseSrc, moduleDir, &rep.Timing.BuildBase)
	if err != nil {
		return err
	}
	cand, err := buildSide(o, root, "candidate", o.kubernetes, moduleDir, &rep.Timing.BuildCandidate)
	if err != nil {
		return err
	}
	rep.Base, rep.Candidate, rep.Layout = base.slot.name(), o.kubernetes, cand.slot.layout
	outDir := cmp.Or(o.out, filepath.Join(cand.slot.dir, "report"))
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return err
	}
	baseRuns, err := base.sweep(o, moduleDir, filepath.Join(outDir, "base-runs.json"), &rep.Timing.SweepBase)
	if err != nil {
		return err
	}
	candRuns, err := cand.sweep(o, moduleDir, filepath.Join(outDir, "candidate-runs.json"), &rep.Timing.SweepCandidate)
	if err != nil {
		return err
	}
	rep.Regressions, rep.Fixes = diffRuns(baseRuns, candRuns)
	t0 := time.Now()
	shrinkChanges(rep.Regressions, o.shrink, cand, moduleDir, outDir)
	rep.Timing.Shrink = time.Since(t0).Seconds()
	for i := range rep.Regressions {
		rep.Regressions[i].Reproduce = reproduce(o.kubernetes, rep.Regressions[i])
	}
	for i := range rep.Fixes {
		rep.Fixes[i].Reproduce = reproduce(baseSrc, rep.Fixes[i])
	}
	rep.Verdict = "pass"
	if len(rep.Regressions) > 0 {
		rep.Verdict = "fail"
	}
	b, _ := json.MarshalIndent(rep, "", "  ")
	if err := os.WriteFile(filepath.Join(outDir, "gate.json"), b, 0o644); err != nil {
		return err
	}
	if o.json {
		fmt.Println(string(b))
	} else {
		printTable(os.Stdout, rep, outDir)
	}
	if rep.Verdict == "fail" {
		return errFailed
	}
	return nil
}

func newReport(o options) gateReport {
	fams := len(familyNames())
	if o.scenario != "all" {
		fams = 1
	}
	modes := strings.Split(o.modes, ",")
	return gateReport{Families: fams, Seeds: o.seeds, Start: o.start, Modes: modes,
		RunsPerSide: fams * o.seeds * len(modes), Regressions: []change{}, Fixes: []change{}}
}

// printTable prints the gate's verdict, regressions (with shrunk scripts
// and the reproduce command) and fixes.
func printTable(w io.Writer, r gateReport, outDir string) {
	fmt.Fprintf(w, "gate: candidate %s (%s) against %s\n", r.Candidate, r.Layout, r.Base)
	fmt.Fprintf(w, "      %d families × seeds %d..%d × modes %s = %d runs per side\n",
		r.Families, r.Start, r.Start+uint64(r.Seeds)-1, strings.Join(r.Modes, ","), r.RunsPerSide)
	section := func(title string, cs []change) {
		fmt.Fprintf(w, "\n%s: %d\n", title, len(cs))
		if len(cs) == 0 {
			return
		}
		// One row per (mode, family, key): how many seeds, the first one
		// and its reproduce command; every seed is in gate.json.
		fmt.Fprintf(w, "%-5s %-32s %-20s %6s %10s  %s\n", "mode", "family", "finding", "seeds", "first seed", "reproduce (first seed)")
		for i := 0; i < len(cs); {
			n := 1
			for j := i + 1; j < len(cs); j++ {
				if cs[j].Mode == cs[i].Mode && cs[j].Family == cs[i].Family && cs[j].Key == cs[i].Key {
					n++
				}
			}
			fmt.Fprintf(w, "%-5s %-32s %-20s %6d %10d  %s\n", cs[i].Mode, cs[i].Family, cs[i].Key, n, cs[i].Seed, cs[i].Reproduce)
			i = nextGroup(cs, i)
		}
	}
	section("REGRESSIONS (new on the candidate)", r.Regressions)
	for _, c := range r.Regressions {
		if c.Script != "" {
			fmt.Fprintf(w, "\n--- shrunk: %s seed %d (%s), %s → %s\n%s\n", c.Family, c.Seed, c.Mode, c.Key, c.File, scriptOnly(c.Script))
		}
	}
	section("FIXES (gone on the candidate)", r.Fixes)
	fmt.Fprintf(w, "\nverdict: %s (%d regressions, %d fixes); report: %s\n", strings.ToUpper(r.Verdict),
		len(r.Regressions), len(r.Fixes), filepath.Join(outDir, "gate.json"))
}

// nextGroup is the index after i of the first change of another (mode,
// family, key) not yet printed; changes are sorted by mode, family, seed.
func nextGroup(cs []change, i int) int {
	for j := i + 1; j < len(cs); j++ {
		if cs[j].Mode != cs[i].Mode || cs[j].Family != cs[i].Family {
			return firstUnprinted(cs, i, j)
		}
	}
	return firstUnprinted(cs, i, len(cs))
}

// firstUnprinted: within the (mode, family) block [start, end), the first
// change after cs[i] whose key no earlier change of the block has.
func firstUnprinted(cs []change, i, end int) int {
	start := i
	for start > 0 && cs[start-1].Mode == cs[i].Mode && cs[start-1].Family == cs[i].Family {
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
