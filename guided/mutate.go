package guided

import (
	"fmt"
	"slices"

	"github.com/podsim/podsim/sim"
)

// next draws the input of run g: a fresh seed, or a mutation of a corpus
// entry, in the proportion freshShare says; fresh reports which. rng is
// the run's own stream, derived from the loop's seed and g.
func next(rng sim.Source, c *Corpus, loopSeed, g uint64) (in Input, fresh bool) {
	if len(c.Entries) == 0 || rng.Intn(shareUnit) < c.freshShare() {
		in = SeedInput(loopSeed + g)
		if rng.Intn(biasOneIn) == 0 {
			in.Faults.Bias = biases[rng.Intn(len(biases))]
		}
		return in, true
	}
	in = clone(parent(rng, c))
	tails := func(k int) uint64 { return sim.Derive(loopSeed, fmt.Sprintf("guided/tail/%d/%d", g, k)) }
	for k, n := 0, 1+rng.Intn(4)/3; k < n; k++ {
		mutate(rng, c, &in, tails(k))
	}
	return in, false
}

// shareUnit is the denominator of freshShare.
const shareUnit = 64

// freshShare is the share of fresh inputs, in 1/shareUnit: a two-armed
// bandit over the yield (runs that reached a new key, +1, over runs, +2) of
// fresh and mutated inputs so far, kept within [1/8, 7/8]. A family whose
// plans are varied (the swarms) gets more fresh seeds; one whose states
// lie deep in a few plans gets more mutations.
func (c *Corpus) freshShare() int {
	fHit, fRuns := c.FreshHits+1, c.FreshRuns+2
	mHit, mRuns := c.MutatedHits+1, c.MutatedRuns+2
	num, den := fHit*mRuns, fHit*mRuns+mHit*fRuns
	return min(max(int(shareUnit*num/den), shareUnit/8), shareUnit*7/8)
}

// biasOneIn: one fresh input in biasOneIn has biased faults, with a
// Stream.Bias drawn from biases (BUGGIFY: the plan's own fault kinds, at
// the top of their draws far more often than their rates say).
const biasOneIn = 4

var biases = []int{4, 16, 64}

// rarestOf is how many coverage keys parent draws to find a rare one.
const rarestOf = 32

// parent picks a corpus entry near a rarely reached state: of rarestOf
// coverage keys drawn at random, the one the fewest runs reached, and the
// entry that reached it first (a random entry if that one was evicted).
// So the loop spends its runs next to the states it has seen least.
func parent(rng sim.Source, c *Corpus) Input {
	best := -1
	for i := 0; i < rarestOf && len(c.keys) > 0; i++ {
		k := rng.Intn(len(c.keys))
		if best < 0 || c.keys[k].hits < c.keys[best].hits {
			best = k
		}
	}
	if best >= 0 {
		if e, ok := c.entry(c.keys[best].owner); ok {
			return e.Input
		}
	}
	return c.Entries[rng.Intn(len(c.Entries))].Input
}

func clone(in Input) Input {
	for _, s := range []*Stream{&in.Plan, &in.Schedule, &in.Faults} {
		s.Choices = slices.Clone(s.Choices)
	}
	return in
}

// The mutations.
const (
	opFlip = iota
	opInsert
	opShorten
	opReseed
	opSplice
	opSwap
	opBias
	nOps
)

// mutate applies one mutation to one stream of in: the plan or the
// schedule 2 times in 5 each, the faults 1 in 5.
func mutate(rng sim.Source, c *Corpus, in *Input, tail uint64) {
	which := rng.Intn(5)
	s := [...]*Stream{&in.Plan, &in.Faults, &in.Schedule, &in.Schedule, &in.Plan}[which]
	other := c.Entries[rng.Intn(len(c.Entries))].Input
	otherStream := [...]Stream{other.Plan, other.Faults, other.Schedule, other.Schedule, other.Plan}[which]
	op := rng.Intn(nOps)
	if op == opBias && s != &in.Faults {
		op = opReseed
	}
	at := rng.Intn(len(s.Choices) + 1)
	switch op {
	case opFlip:
		if len(s.Choices) > 0 {
			at = min(at, len(s.Choices)-1)
			s.Choices[at] += 1 + rng.Intn(7)
		}
		s.Tail, s.Seeded = tail, true
	case opInsert:
		ins := make([]int, 1+rng.Intn(4))
		for i := range ins {
			ins[i] = 1 + rng.Intn(7)
		}
		s.Choices = slices.Insert(s.Choices, at, ins...)
		s.Tail, s.Seeded = tail, true
	case opShorten:
		s.Choices, s.Seeded, s.Bias = s.Choices[:at], false, 0
	case opReseed:
		s.Choices, s.Tail, s.Seeded, s.Bias = s.Choices[:at], tail, true, 0
	case opSplice:
		if at < len(otherStream.Choices) {
			s.Choices = append(s.Choices[:at], otherStream.Choices[at:]...)
		}
		s.Seeded, s.Bias = false, 0
	case opSwap:
		*s = Stream{Choices: slices.Clone(otherStream.Choices), Tail: otherStream.Tail, Seeded: otherStream.Seeded,
			Bias: otherStream.Bias}
	case opBias:
		s.Choices, s.Tail, s.Seeded, s.Bias = s.Choices[:at], tail, true, biases[rng.Intn(len(biases))]
	}
}
