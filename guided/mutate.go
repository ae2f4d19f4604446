package guided

import (
	"fmt"
	"slices"

	"github.com/podsim/podsim/sim"
)

// freshOneIn: one input in freshOneIn is a fresh seed, not a mutation.
const freshOneIn = 4

// next draws the input of run g: a fresh seed, or a mutation of a corpus
// entry. rng is the run's own stream, derived from the loop's seed and g.
func next(rng sim.Source, c *Corpus, loopSeed, g uint64) Input {
	if len(c.Entries) == 0 || rng.Intn(freshOneIn) == 0 {
		return SeedInput(loopSeed + g)
	}
	in := clone(parent(rng, c))
	tails := func(k int) uint64 { return sim.Derive(loopSeed, fmt.Sprintf("guided/tail/%d/%d", g, k)) }
	for k, n := 0, 1+rng.Intn(3); k < n; k++ {
		mutate(rng, c, &in, tails(k))
	}
	return in
}

// parent picks a corpus entry: the one of two drawn at random that found
// more (a tournament, so rare-state finders breed more often).
func parent(rng sim.Source, c *Corpus) Input {
	a, b := c.Entries[rng.Intn(len(c.Entries))], c.Entries[rng.Intn(len(c.Entries))]
	if b.Found > a.Found {
		a = b
	}
	return a.Input
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

// mutate applies one mutation to one stream of in: the schedule half the
// time, the plan or the faults a quarter each.
func mutate(rng sim.Source, c *Corpus, in *Input, tail uint64) {
	which := rng.Intn(4)
	s := [...]*Stream{&in.Plan, &in.Faults, &in.Schedule, &in.Schedule}[which]
	other := c.Entries[rng.Intn(len(c.Entries))].Input
	otherStream := [...]Stream{other.Plan, other.Faults, other.Schedule, other.Schedule}[which]
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
		s.Choices, s.Tail, s.Seeded, s.Bias = s.Choices[:at], tail, true, [...]int{4, 16, 64}[rng.Intn(3)]
	}
}
