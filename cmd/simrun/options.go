package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
)

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

// seeds lists the seeds of [start, start+count) that belong to the shard.
func (sh shard) seeds(start, count uint64) []uint64 {
	var out []uint64
	for off := sh.k; off < count; off += sh.n {
		out = append(out, start+off)
	}
	return out
}

// strategyNamed returns the strategy called name; PCT's k is the typical
// scheduling points of a run.
func strategyNamed(name string, depth int) (sim.Strategy, error) {
	switch name {
	case "random":
		return sim.RandomWalk{}, nil
	case "pct":
		if depth < 1 {
			return nil, usagef("--pct-depth %d: want at least 1", depth)
		}
		return sim.PCT{Depth: depth, Steps: pctSteps}, nil
	}
	return nil, usagef("unknown strategy %q: want random or pct", name)
}

// pctSteps is PCT's k: scenario runs take a few hundred to a few thousand
// scheduling points.
const pctSteps = 2000

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

// reproduce is the command that replays one seed, with its mutant if any.
func reproduce(family string, seed uint64, strategy, mutant string) string {
	return fmt.Sprintf("go run ./cmd/simrun replay --scenario %s --seed %d --strategy %s", family, seed, strategy) +
		mutantArg(mutant)
}
