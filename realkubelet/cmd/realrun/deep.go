package main

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/podsim/podsim/plan"
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
	Corpus string   // guided, the candidate's: the corpora to run first and grow (a copy of --corpus)
	Inputs string   // guided, the base's: the candidate's run list, whose inputs to run again
	Faults []string // the logind faults' test flags (options.faultTestFlags)
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
	for i := range out {
		out[i].Faults = o.faultTestFlags()
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
