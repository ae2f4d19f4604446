package main

import (
	"cmp"
	"fmt"
	"math"
	"runtime"
	"strconv"
	"strings"

	"github.com/podsim/podsim/guided"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/run"
	"github.com/podsim/podsim/sim"
)

// Bounds of the run flags: beyond them a run would exhaust memory or mean
// nothing, so they are bad usage (exit 2).
const (
	maxSeeds    = 100_000_000 // --seeds, per family
	maxPCTDepth = pctSteps    // more change points than scheduling points mean nothing
	maxParallel = 1024        // --parallel even with --force-parallel
)

// parallelLimit is --parallel's bound without --force-parallel.
func parallelLimit() int { return 4 * runtime.NumCPU() }

// parseSeed reads a seed: a non-negative decimal integer.
func parseSeed(s string) (uint64, error) {
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, usagef("malformed seed %q: want a non-negative integer", s)
	}
	return v, nil
}

// shard is "K/N": this process runs the seeds whose offset from the start
// is K modulo N, so the N shards together run exactly the unsharded seeds.
type shard struct{ k, n uint64 }

func parseShard(s string) (shard, error) {
	if s == "" {
		return shard{0, 1}, nil
	}
	ks, ns, ok := strings.Cut(s, "/")
	k, errK := strconv.ParseUint(ks, 10, 64)
	n, errN := strconv.ParseUint(ns, 10, 64)
	if !ok || errK != nil || errN != nil || n == 0 || k >= n {
		return shard{}, usagef("malformed shard %q: want K/N with 0 <= K < N", s)
	}
	return shard{k, n}, nil
}

// count is how many of the seeds [start, start+count) belong to the shard.
func (sh shard) count(total uint64) uint64 {
	if sh.k >= total {
		return 0
	}
	return (total-1-sh.k)/sh.n + 1
}

// seed is the shard's i-th seed of the range that begins at start
// (i < count(total); the caller checked that start+total does not overflow).
func (sh shard) seed(start, i uint64) uint64 { return start + sh.k + i*sh.n }

// checkSeedRange refuses --seeds out of range and a range past the largest
// seed (it would wrap round to seed 0).
func checkSeedRange(start, count uint64) error {
	if count == 0 || count > maxSeeds {
		return usagef("--seeds %d: want 1 to 100,000,000", count)
	}
	if start > math.MaxUint64-(count-1) {
		return usagef("--start %d --seeds %d: the range passes the largest seed, %d", start, count, uint64(math.MaxUint64))
	}
	return nil
}

// strategyNamed returns the strategy called name; PCT's k is the typical
// scheduling points of a run.
func strategyNamed(name string, depth int) (sim.Strategy, error) {
	switch name {
	case "random":
		return sim.RandomWalk{}, nil
	case "pct":
		if depth < 1 || depth > maxPCTDepth {
			return nil, usagef("--pct-depth %d: want 1 to %d", depth, maxPCTDepth)
		}
		return sim.PCT{Depth: depth, Steps: pctSteps}, nil
	case "guided":
		return guided.Strategy, nil
	case "portfolio":
		return nil, usagef("--strategy portfolio is a sweep's (run, gate): replay or shrink a run under the strategy its failure line names")
	}
	return nil, usagef("unknown strategy %q: want random, pct or guided (run: or portfolio)", name)
}

// pctSteps is PCT's k: scenario runs take a few hundred to a few thousand
// scheduling points.
const pctSteps = 2000

// checkParallel bounds --parallel: at most 4 × CPUs unless forced, and
// never above maxParallel.
func checkParallel(n int, force bool) error {
	switch {
	case n < 1:
		return usagef("--parallel %d: want at least 1", n)
	case n > maxParallel:
		return usagef("--parallel %d: want at most %d", n, maxParallel)
	case n > parallelLimit() && !force:
		return usagef("--parallel %d: want at most %d (4 × %d CPUs), or add --force-parallel", n, parallelLimit(), runtime.NumCPU())
	}
	return nil
}

// familiesNamed resolves --scenario: a family name or "all".
func familiesNamed(name string) ([]plan.Family, error) {
	all := plan.Families()
	if name == "all" {
		return all, nil
	}
	var names []string
	for _, f := range all {
		if f.Name == name {
			return []plan.Family{f}, nil
		}
		names = append(names, f.Name)
	}
	return nil, usagef("unknown scenario %q: want one of %s, or all", name, strings.Join(names, ", "))
}

// mutantApplies refuses a mutant run against one family it is not built
// for (with --scenario all every family runs, as the gate's correct-code
// sweep does).
func mutantApplies(mutant, scenario string) error {
	if mutant == "" || scenario == "all" {
		return nil
	}
	m, ok := run.MutantNamed(mutant)
	if !ok {
		return validMutant(mutant)
	}
	for _, f := range m.Families {
		if f == scenario {
			return nil
		}
	}
	return usagef("mutant %s does not apply to %s: it applies to %s", mutant, scenario, strings.Join(m.Families, ", "))
}

// strategyArg is the strategy as replay's arguments: its name, and PCT's
// depth when it is not the default.
func strategyArg(name string, depth int) string {
	if name == "pct" && depth != defaultPCTDepth {
		return fmt.Sprintf("%s --pct-depth %d", name, depth)
	}
	return name
}

// defaultPCTDepth is --pct-depth's default.
const defaultPCTDepth = 3

// reproduceResult is the command that replays r: by its input for a
// guided run, else by its seed.
func reproduceResult(r run.Result, strategy string) string {
	if r.Input != "" {
		return fmt.Sprintf("go run ./cmd/simrun replay --scenario %s --input %s", r.Family, r.Input) + mutantArg(r.Mutant) +
			faultPointsArg(r.FaultPointsArmed)
	}
	return reproduce(r.Family, r.Seed, cmp.Or(r.Strategy, strategy), r.Mutant) + faultPointsArg(r.FaultPointsArmed)
}

// faultPointsArg is --fault-points for a reproduce command, or "".
func faultPointsArg(on bool) string {
	if !on {
		return ""
	}
	return " --fault-points"
}

// faultPointsUsage documents --fault-points (run, replay, shrink, gate).
const faultPointsUsage = "arm the situation fault points (docs/guided.md): each run's fault stream first draws which are on; a run made with them replays only with them"

// reproduce is the command that replays one seed, with its mutant if any;
// strategy is strategyArg's.
// observableOnlyUsage documents --observable-only (run, replay, gate).
const observableOnlyUsage = "switch the pod workers' internal invariants and in-line assertions off: only the oracles, judging what a caller observes, decide the verdict"

func reproduce(family string, seed uint64, strategy, mutant string) string {
	return fmt.Sprintf("go run ./cmd/simrun replay --scenario %s --seed %d --strategy %s", family, seed, strategy) +
		mutantArg(mutant)
}
