package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/podsim/podsim/realdriver"
	"github.com/podsim/podsim/realkubelet/cmd/realrun/scratch"
	"github.com/podsim/podsim/realkubelet/cmd/realrun/toolrun"
)

// The differential gate: the same families, seeds and wake-up modes on a
// base and a candidate tree. A finding key ("CLASS INVARIANT") present on
// the candidate and absent on the base for the same (family, seed, mode)
// is a regression and fails the gate; one present on the base only is
// reported as a fix.

// runKey is one run of the sweep: a seed's, or (Input set) a guided
// run's, Seed then its index in the loop.
type runKey struct {
	Family string
	Seed   uint64
	Hold   bool
	Input  string
}

// gateRun is a run as TestGateSweep writes it (realdriver.GateRun, the
// same on every target).
type gateRun = realdriver.GateRun

// change is one finding key that appeared (regression) or disappeared
// (fix) on the candidate.
type change struct {
	Family    string `json:"family"`
	Seed      uint64 `json:"seed"`
	Mode      string `json:"mode"`
	Key       string `json:"key"`
	Tier      string `json:"tier"`            // the sweep that ran it: "shallow", "deep" (--deep) or "guided" (--guided)
	Input     string `json:"input,omitempty"` // a guided run's input token (Seed is then its index in the loop)
	Reproduce string `json:"reproduce"`
	Script    string `json:"script,omitempty"`
	File      string `json:"script_file,omitempty"`
}

// gateReport is what the gate prints (table or --json).
type gateReport struct {
	Base        string       `json:"base"`
	Candidate   string       `json:"candidate"`
	Layout      string       `json:"candidate_layout"`
	Corpus      string       `json:"corpus,omitempty"` // --corpus: the guided tier's corpora (copied into guided-corpus/)
	Families    int          `json:"families"`
	Seeds       int          `json:"seeds_per_family"`
	Start       uint64       `json:"start"`
	Modes       []string     `json:"modes"`
	Logind      bool         `json:"logind_restart,omitempty"` // --logind-restart
	LogindDelay bool         `json:"logind_delay,omitempty"`   // --logind-delay
	RunsPerSide int          `json:"runs_per_side"`            // every tier's
	Tiers       []tierReport `json:"tiers"`
	Regressions []change     `json:"regressions"`
	Fixes       []change     `json:"fixes"`
	// Died says why the candidate's sweep stopped: a panic, or a run past
	// --hang, where the base's runs of the same tier ended. The gate then
	// fails; the tiers the candidate finished before it died
	// (ComparedBeforeDeath) are compared run by run, its run list of the
	// tier it died in is cut short and is not.
	Died                string   `json:"candidate_died,omitempty"`
	ComparedBeforeDeath []string `json:"compared_before_death,omitempty"`
	Verdict             string   `json:"verdict"`
	Timing              timing   `json:"timing_seconds"`
}

// timing is wall time per phase (for the report only; never compared);
// SweepBase and SweepCandidate are the shallow tier's, DeepBase and
// DeepCandidate every deep tier's, GuidedBase and GuidedCandidate the
// guided tier's.
type timing struct {
	BuildBase, BuildCandidate, SweepBase, SweepCandidate, DeepBase, DeepCandidate, Shrink float64
	GuidedBase                                                                            float64 `json:",omitempty"`
	GuidedCandidate                                                                       float64 `json:",omitempty"`
}

// add counts secs of a tier's sweep on a side ("base" or "candidate").
func (tm *timing) add(side, tier string, secs float64) {
	base := side == "base"
	switch {
	case tier == "shallow" && base:
		tm.SweepBase += secs
	case tier == "shallow":
		tm.SweepCandidate += secs
	case tier == "deep" && base:
		tm.DeepBase += secs
	case tier == "deep":
		tm.DeepCandidate += secs
	case base:
		tm.GuidedBase += secs
	default:
		tm.GuidedCandidate += secs
	}
}

// side is one built tree of the gate.
type side struct {
	slot scratch.Slot
	bin  string
	env  []string // more environment for its sweeps (a schema build's PODSIM_MUTANT)
}

func buildSide(o options, tg target, root, name, source string, secs *float64) (side, error) {
	t0 := time.Now()
	s, err := tg.prepare(root, name, source)
	if err != nil {
		return side{}, err
	}
	bin, err := tg.ready(s, o.trimpath)
	*secs = time.Since(t0).Seconds()
	if err == nil {
		progress("built %s (%s) in %.0fs", s.Name(), s.Layout, *secs)
	}
	return side{slot: s, bin: bin}, err
}

func progress(format string, a ...any) { fmt.Fprintf(os.Stderr, "realrun: "+format+"\n", a...) }

// sweep runs TestGateSweep on one side for one tier: every run's finding
// keys. The binary names each run as it starts and ends (-gate.beats), a
// progress line every progressEvery runs reaches realrun's log, and a run
// that does not end within hang (0: no bound) stops the sweep (a
// toolrun.Died, as is a binary that dies).
func (sd side) sweep(ctx context.Context, t tier, moduleDir, file string, hang time.Duration) (map[runKey][]string, error) {
	t0 := time.Now()
	timeout := time.Duration(60+reportTier(t).RunsPerSide/1000) * time.Minute // a backstop: hang bounds each run
	args := append([]string{"-test.run", "^TestGateSweep$", "-test.timeout", timeout.String(), "-gate.out", file,
		"-gate.progress", strconv.Itoa(progressEvery), "-gate.beats"}, t.args()...)
	progress("sweeping %s: %s", sd.slot.Name(), t)
	log := func(line string) {
		progress("%s %s [%.0fs]: %s", sd.slot.Name(), t.Name, time.Since(t0).Seconds(), line)
	}
	res := toolrun.Cmd{Bin: sd.bin, Args: args, Dir: moduleDir, Env: append(sd.slot.GoEnv(), sd.env...),
		Hang: hang, Beat: toolrun.GateBeat(log)}.Run(ctx)
	switch {
	case res.Signaled: // an interrupt, not the code's doing: no verdict
		return nil, fmt.Errorf("sweep on %s was stopped from outside: %v", sd.slot.Name(), res.Err)
	case res.Err != nil || res.Hung:
		return nil, &toolrun.Died{Side: sd.slot.Name(), Out: res, Hang: hang}
	}
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
		out[runKey{r.Family, r.Seed, r.Hold, r.Input}] = r.Keys
	}
	progress("swept %s, %s tier, in %.0fs: %d runs with findings", sd.slot.Name(), t.Name, time.Since(t0).Seconds(), len(runs))
	return out, nil
}

// changeOf is a sweep's run as a change (no key) to name or replay it.
func changeOf(r toolrun.Run) change {
	return change{Family: r.Family, Mode: r.Mode, Seed: r.Index, Input: r.Input}
}

// progressEvery: the sweep reports its progress every this many runs.
const progressEvery = 1000

// diffRuns lists the keys new on cand (regressions) and gone from base
// (fixes), ordered by mode, family, seed, key, a guided run after every
// seed's. A guided run's fix is not one: the base runs only the inputs
// the candidate's loop found something on (gate_guided.go), so fixes
// there would be a partial list; they are left out.
func diffRuns(base, cand map[runKey][]string) (regs, fixes []change) {
	onlyIn := func(a, b map[runKey][]string) []change {
		var out []change
		for k, keys := range a {
			for _, key := range keys {
				if !slices.Contains(b[k], key) {
					out = append(out, change{Family: k.Family, Seed: k.Seed, Mode: realdriver.ModeName(k.Hold), Key: key, Input: k.Input})
				}
			}
		}
		slices.SortFunc(out, func(x, y change) int {
			return cmp.Or(cmp.Compare(x.Mode, y.Mode), cmp.Compare(x.Family, y.Family), cmp.Compare(min(len(x.Input), 1), min(len(y.Input), 1)),
				cmp.Compare(x.Seed, y.Seed), cmp.Compare(x.Key, y.Key), cmp.Compare(x.Input, y.Input))
		})
		return out
	}
	fixes = slices.DeleteFunc(onlyIn(base, cand), func(c change) bool { return c.Input != "" })
	return onlyIn(cand, base), fixes
}

// runGate is `realrun gate --kubernetes DIR [--base ...]`, or with --vk
// `realrun gate --virtual-kubelet DIR [--base ...]`.
func runGate(o options, kubeletDir, root string) error {
	if o.mutants {
		return runMutants(o, kubeletDir, root)
	}
	tg, err := targetOf(o, kubeletDir)
	if err != nil {
		return err
	}
	rep := newReport(o)
	baseSrc, baseSlot := "", "pinned"
	if o.base != pinned && o.base != vkPinned {
		baseSrc, baseSlot = o.base, "base"
	}
	base, err := buildSide(o, tg, root, baseSlot, baseSrc, &rep.Timing.BuildBase)
	if err != nil {
		return err
	}
	cand, err := buildSide(o, tg, root, "candidate", tg.user, &rep.Timing.BuildCandidate)
	if err != nil {
		return err
	}
	rep.Base, rep.Candidate, rep.Layout = base.slot.Name(), cand.slot.Name(), cand.slot.Layout
	outDir := cmp.Or(o.out, filepath.Join(cand.slot.Dir, "report"))
	g := gate{o: o, vk: tg.vk, baseSrc: baseSrc, outDir: outDir, stdout: os.Stdout,
		sweep: func(sd side, t tier, file string) (map[runKey][]string, error) {
			return sd.sweep(context.Background(), t, tg.moduleDir, file, o.hang) // an interrupt ends realrun
		},
		shrink: func(regs []change, sd side) { shrinkChanges(regs, o.shrink, sd, tg, outDir) }}
	return g.judge(&rep, base, cand)
}

// gate is the differential gate once both sides are built. sweep and
// shrink run a side's test binary (the tests give fakes).
type gate struct {
	o       options
	vk      bool   // the target is the virtual-kubelet
	baseSrc string // the base tree, "" for the pin (the fixes' reproduce commands)
	outDir  string
	stdout  io.Writer
	sweep   func(sd side, t tier, file string) (map[runKey][]string, error)
	shrink  func(regs []change, sd side)
}

// judge sweeps every tier on both sides, compares them run by run, shrinks
// regressions on the candidate, and reports: errFailed if any regressed.
func (g gate) judge(rep *gateReport, base, cand side) error {
	if err := os.MkdirAll(g.outDir, 0o755); err != nil {
		return err
	}
	tiers, err := g.guidedCorpus(gateTiers(g.o))
	if err != nil {
		return err
	}
	// The base's seeds, every tier on the candidate, then the base's runs
	// of the guided inputs the candidate's loop drew (gate_guided.go).
	baseRuns, _, err := g.sweepSide(base, "base", slices.DeleteFunc(slices.Clone(tiers), isGuided), &rep.Timing)
	if err != nil {
		return err
	}
	candRuns, done, err := g.sweepSide(cand, "candidate", tiers, &rep.Timing)
	var dead *toolrun.Died
	switch {
	case errors.As(err, &dead):
		if err := g.died(rep, dead, base, tiers); err != nil {
			return err
		}
		if done > 0 { // the tiers before the one it died in ended: theirs are compared
			for _, t := range tiers[:done] {
				rep.ComparedBeforeDeath = append(rep.ComparedBeforeDeath, t.Name)
			}
			g.compare(rep, tiers, coveredBy(baseRuns, tiers[:done]), candRuns, cand)
		}
		return g.verdict(rep)
	case err != nil:
		return err
	}
	if i := slices.IndexFunc(tiers, isGuided); i >= 0 {
		t := tiers[i]
		t.Corpus, t.Inputs = "", filepath.Join(g.outDir, t.file("candidate"))
		runs, _, err := g.sweepSide(base, "base", []tier{t}, &rep.Timing)
		if err != nil {
			return err
		}
		maps.Copy(baseRuns, runs)
	}
	g.compare(rep, tiers, baseRuns, candRuns, cand)
	return g.verdict(rep)
}

// died fills rep.Died from the candidate's dead sweep: why, in which run,
// and the command that replays it. A guided run's input is run on the
// base first: if the base dies on it too, the gate cannot judge (an
// error, not a verdict).
func (g gate) died(rep *gateReport, dead *toolrun.Died, base side, tiers []tier) error {
	rep.Died = dead.Error()
	r, ok := dead.Run()
	if i := slices.IndexFunc(tiers, isGuided); ok && r.Input != "" && i >= 0 {
		if err := endsOn(g.sweep, base, tiers[i], r, g.outDir); err != nil {
			return fmt.Errorf("%s; the base dies on the same input too, so the gate cannot judge the candidate: %v", rep.Died, err)
		}
		rep.Died += "; the base's run of the same input ends"
	}
	if ok {
		rep.Died += "; " + reproduce(g.vk, g.o.candidateArg(), changeOf(r), g.o.faultFlags())
	}
	return nil
}

// compare diffs the two sides' runs into rep's regressions and fixes, each
// named by its tier with its reproduce command, and shrinks the
// regressions on the candidate.
func (g gate) compare(rep *gateReport, tiers []tier, baseRuns, candRuns map[runKey][]string, cand side) {
	rep.Regressions, rep.Fixes = diffRuns(baseRuns, candRuns)
	for i, c := range rep.Regressions {
		rep.Regressions[i].Tier, rep.Regressions[i].Reproduce = tierOf(tiers, c), reproduce(g.vk, g.o.candidateArg(), c, g.o.faultFlags())
	}
	for i, c := range rep.Fixes {
		rep.Fixes[i].Tier, rep.Fixes[i].Reproduce = tierOf(tiers, c), reproduce(g.vk, cmp.Or(g.o.baseArg, g.baseSrc), c, g.o.faultFlags())
	}
	t0 := time.Now()
	g.shrink(rep.Regressions, cand)
	rep.Timing.Shrink = time.Since(t0).Seconds()
}

// coveredBy is the runs of runs that one of tiers ran (seeded runs only).
func coveredBy(runs map[runKey][]string, tiers []tier) map[runKey][]string {
	out := map[runKey][]string{}
	for k, keys := range runs {
		if k.Input == "" && slices.ContainsFunc(tiers, func(t tier) bool { return t.covers(k.Family, realdriver.ModeName(k.Hold), k.Seed) }) {
			out[k] = keys
		}
	}
	return out
}

// verdict writes and prints the report: errFailed if a run regressed or
// the candidate's sweep died.
func (g gate) verdict(rep *gateReport) error {
	rep.Verdict = "pass"
	if len(rep.Regressions) > 0 || rep.Died != "" {
		rep.Verdict = "fail"
	}
	b, _ := json.MarshalIndent(rep, "", "  ")
	if err := os.WriteFile(filepath.Join(g.outDir, "gate.json"), b, 0o644); err != nil {
		return err
	}
	if g.o.json {
		fmt.Fprintln(g.stdout, string(b))
	} else {
		printTable(g.stdout, *rep, g.outDir)
	}
	if rep.Verdict == "fail" {
		return errFailed
	}
	return nil
}

// sweepSide runs every tier on one side (name: base or candidate), each
// into its run list in the report directory; tiers never share a run. On
// an error it returns the runs of the tiers that ended before it, and how
// many did.
func (g gate) sweepSide(sd side, name string, tiers []tier, tm *timing) (map[runKey][]string, int, error) {
	all := map[runKey][]string{}
	for i, t := range tiers {
		t0 := time.Now()
		runs, err := g.sweep(sd, t, filepath.Join(g.outDir, t.file(name)))
		if err != nil {
			return all, i, err
		}
		tm.add(name, t.Name, time.Since(t0).Seconds())
		maps.Copy(all, runs)
	}
	return all, len(tiers), nil
}

func newReport(o options) gateReport {
	fams := len(scenarioNames(o))
	if o.scenario != "all" {
		fams = 1
	}
	r := gateReport{Families: fams, Seeds: o.seeds, Start: o.start, Modes: strings.Split(o.modes, ","), Corpus: o.corpus, Logind: o.logind, LogindDelay: o.logindDelay,
		Regressions: []change{}, Fixes: []change{}}
	for _, t := range gateTiers(o) {
		r.Tiers = append(r.Tiers, reportTier(t))
		r.RunsPerSide += r.Tiers[len(r.Tiers)-1].RunsPerSide
	}
	return r
}
