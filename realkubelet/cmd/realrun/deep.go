package main

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/realkubelet/cmd/realrun/toolrun"
)

// The gate's deep tier: one family in one wake-up mode swept much further
// than the rest (--deep swarm-restart/hold:10000), for the rare races the
// unmutated kubelet shows only far out (GH at hold swarm-restart seed
// 4,646). Its runs are compared per seed like every other run; a change
// says which tier its run came from.

// deepSpec is one --deep item: FAMILY/MODE:SEEDS, the seeds counted from
// --start, the shallow tier's included.
type deepSpec struct {
	Family string
	Mode   string
	Seeds  int
}

func (d deepSpec) String() string { return fmt.Sprintf("%s/%s:%d", d.Family, d.Mode, d.Seeds) }

// deepList is the --deep flag: repeatable, each value a comma-separated
// list of FAMILY/MODE:SEEDS; an empty value adds nothing.
type deepList []deepSpec

func (l *deepList) String() string {
	if l == nil {
		return ""
	}
	var s []string
	for _, d := range *l {
		s = append(s, d.String())
	}
	return strings.Join(s, ",")
}

// Set parses one --deep value; the flag package puts its error on one
// line ("invalid value ... for flag -deep: ...").
func (l *deepList) Set(v string) error {
	if v == "" {
		return nil
	}
	for _, item := range strings.Split(v, ",") {
		d, err := parseDeep(item)
		if err != nil && strings.Contains(v, ",") {
			return fmt.Errorf("%q: %v", item, err) // the flag package quotes v
		} else if err != nil {
			return err
		}
		if slices.ContainsFunc(*l, func(o deepSpec) bool { return o.Family == d.Family && o.Mode == d.Mode }) {
			return fmt.Errorf("%s/%s is given twice", d.Family, d.Mode)
		}
		*l = append(*l, d)
	}
	return nil
}

// parseDeep reads FAMILY/MODE:SEEDS.
func parseDeep(item string) (deepSpec, error) {
	fm, n, ok := strings.Cut(item, ":")
	fam, mode, ok2 := strings.Cut(fm, "/")
	if !ok || !ok2 {
		return deepSpec{}, fmt.Errorf("want FAMILY/MODE:SEEDS, e.g. swarm-restart/hold:10000")
	}
	if all := namesOf(plan.Families()); !slices.Contains(all, fam) {
		return deepSpec{}, fmt.Errorf("unknown family %q (want one of %s)", fam, strings.Join(all, ", "))
	}
	if mode != "plain" && mode != "hold" {
		return deepSpec{}, fmt.Errorf("unknown mode %q (want plain or hold)", mode)
	}
	seeds, err := strconv.Atoi(n)
	if err != nil || seeds <= 0 {
		return deepSpec{}, fmt.Errorf("seeds %q is not a positive number", n)
	}
	return deepSpec{Family: fam, Mode: mode, Seeds: seeds}, nil
}

// tier is one sweep of the gate, run on each side: the shallow tier
// (every family or --scenario, --seeds seeds, --modes), a deep one, or
// the guided one (gate_guided.go: Start is the loop seed, Seeds the runs).
type tier struct {
	Name   string // "shallow", "deep" or "guided"
	Family string // "" = every family of the target, Fams of them
	Fams   int
	Modes  string // comma-separated
	Start  uint64
	Seeds  int
	Corpus string // guided, the candidate's: the corpora to run first and grow (a copy of --corpus)
	Inputs string // guided, the base's: the candidate's run list, whose inputs to run again
}

func (t tier) last() uint64 { return t.Start + uint64(t.Seeds) - 1 }

// covers: the tier ran family's seed in mode (the guided tier runs no
// seed).
func (t tier) covers(family, mode string, seed uint64) bool {
	return !isGuided(t) && (t.Family == "" || t.Family == family) && slices.Contains(strings.Split(t.Modes, ","), mode) &&
		seed >= t.Start && seed <= t.last()
}

// file is the tier's run list of one side ("base", "candidate").
func (t tier) file(side string) string {
	switch t.Name {
	case "shallow":
		return side + "-runs.json"
	case "guided":
		return side + "-guided-runs.json"
	}
	return fmt.Sprintf("%s-deep-%s-%s-runs.json", side, t.Family, t.Modes)
}

func (t tier) String() string {
	fam := cmp.Or(t.Family, "every family")
	if isGuided(t) {
		return fmt.Sprintf("guided tier (%s, %s, %d runs of loop seed %d)", fam, t.Modes, t.Seeds, t.Start)
	}
	return fmt.Sprintf("%s tier (%s, %s, seeds %d..%d)", t.Name, fam, t.Modes, t.Start, t.last())
}

// gateTiers are the gate's sweeps: the shallow tier, then one per --deep
// item, over the seeds the shallow tier did not run (all of them from
// --start, if the shallow tier has not that family or mode), then the
// guided tier if --guided asks for one.
func gateTiers(o options) []tier {
	shallow := tier{Name: "shallow", Fams: len(scenarioNames(o)), Modes: o.modes, Start: o.start, Seeds: o.seeds}
	if o.scenario != "all" {
		shallow.Family, shallow.Fams = o.scenario, 1
	}
	out := []tier{shallow}
	for _, d := range o.deep {
		t := tier{Name: "deep", Family: d.Family, Fams: 1, Modes: d.Mode, Start: o.start, Seeds: d.Seeds}
		if shallow.covers(d.Family, d.Mode, o.start) {
			t.Start, t.Seeds = o.start+uint64(o.seeds), d.Seeds-o.seeds
		}
		out = append(out, t)
	}
	if o.guided > 0 {
		out = append(out, tier{Name: "guided", Family: shallow.Family, Fams: shallow.Fams, Modes: o.modes, Start: o.start, Seeds: o.guided})
	}
	return out
}

// checkDeep refuses a deep tier of another target's family or mode, one
// that adds no seed, or one with --mutants.
func checkDeep(o options) error {
	if len(o.deep) > 0 && o.mutants {
		return fmt.Errorf("--deep is for gating a --kubernetes tree, not --mutants")
	}
	for _, d := range o.deep {
		if names := scenarioNames(o); !slices.Contains(names, d.Family) {
			return fmt.Errorf("--deep %s: unknown family %q (want one of %s)", d, d.Family, strings.Join(names, ", "))
		}
		if o.vk && d.Mode != "plain" {
			return fmt.Errorf("--deep %s: unknown mode %q (want plain: the virtual-kubelet runs have no wake-up modes)", d, d.Mode)
		}
	}
	for i, t := range gateTiers(o)[1 : 1+len(o.deep)] {
		if t.Seeds <= 0 {
			return fmt.Errorf("--deep %s is not deeper than the other runs (--seeds %d): give it more seeds", o.deep[i], o.seeds)
		}
	}
	return nil
}

// tierOf is the name of the tier that ran c's run.
func tierOf(tiers []tier, c change) string {
	if c.Input != "" {
		return "guided"
	}
	for _, t := range tiers {
		if t.covers(c.Family, c.Mode, c.Seed) {
			return t.Name
		}
	}
	return "?"
}

// tierReport is a tier in gate.json.
type tierReport struct {
	Tier        string   `json:"tier"`
	Family      string   `json:"family"`
	Modes       []string `json:"modes"`
	FirstSeed   uint64   `json:"first_seed"`
	LastSeed    uint64   `json:"last_seed"`
	RunsPerSide int      `json:"runs_per_side"`
	// The guided tier's (no seeds): the loop's seed and its runs per family
	// and mode; its runs_per_side are the candidate's (the base runs again
	// only those with findings); its corpus is the report's.
	LoopSeed uint64 `json:"loop_seed,omitempty"`
	Runs     int    `json:"runs,omitempty"`
}

func reportTier(t tier) tierReport {
	modes := strings.Split(t.Modes, ",")
	r := tierReport{Tier: t.Name, Family: cmp.Or(t.Family, "all"), Modes: modes, FirstSeed: t.Start, LastSeed: t.last(),
		RunsPerSide: t.Fams * t.Seeds * len(modes)}
	if isGuided(t) {
		r.FirstSeed, r.LastSeed, r.LoopSeed, r.Runs = 0, 0, t.Start, t.Seeds
	}
	return r
}

// progressLines passes the sweep's progress lines to realrun's log, with
// the side and the time since the tier began: the binary writes "gate: N
// of T runs, F with findings (last: ...)" every progressEvery runs, and
// "gate: run ..." and "gate: ran ..." as each run starts and ends, the
// beats of the hang watch, which stay out of the log.
type progressLines struct {
	label string
	t0    time.Time
}

func (p progressLines) beat(line string) bool {
	rest, ok := strings.CutPrefix(line, "gate: ")
	if ok && !strings.HasPrefix(rest, "run ") && !strings.HasPrefix(rest, "ran ") {
		progress("%s [%.0fs]: %s", p.label, time.Since(p.t0).Seconds(), rest)
	}
	return ok
}

// sweepError is a sweep that did not complete: its binary died, or one
// of its runs did not end within the hang bound.
type sweepError struct {
	side string
	out  toolrun.Outcome
	hang time.Duration
}

func (e *sweepError) Error() string {
	where := ""
	if c, ok := e.runOf(); ok {
		where = fmt.Sprintf(" (in %s %s %s)", c.Family, c.Mode, runName(c))
	} else if _, after, ok := strings.Cut(e.out.Last, "(last: "); ok {
		where = " (the run after " + strings.TrimSuffix(after, ")") + ")"
	} else if after, ok := strings.CutPrefix(e.out.Last, "gate: ran "); ok {
		where = " (the run after " + after + ")"
	}
	if e.out.Hung {
		return fmt.Sprintf("sweep on %s: a run did not end within %s%s", e.side, e.hang, where)
	}
	return fmt.Sprintf("sweep on %s did not complete%s: %s", e.side, where, e.out.Why())
}

// hung reports whether the sweep stopped on a run that would not end: the
// hang bound, or synctest's deadlock (every goroutine of the run blocked).
func (e *sweepError) hung() bool { return e.out.Hung || e.out.Deadlock() }

// runOf is the run the sweep died in, when its last beat named it as it
// started: "gate: run FAMILY MODE seed S", or a guided run's "gate: run
// FAMILY MODE run N input TOKEN" (Seed its index, Input its token).
func (e *sweepError) runOf() (change, bool) {
	rest, ok := strings.CutPrefix(e.out.Last, "gate: run ")
	f := strings.Fields(rest)
	if !ok || len(f) < 4 {
		return change{}, false
	}
	n, err := strconv.ParseUint(f[3], 10, 64)
	c := change{Family: f[0], Mode: f[1], Seed: n}
	switch {
	case err != nil:
	case f[2] == "seed" && len(f) == 4:
		return c, true
	case f[2] == "run" && len(f) == 6 && f[4] == "input":
		c.Input = f[5]
		return c, true
	}
	return change{}, false
}
