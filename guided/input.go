package guided

import (
	"fmt"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
)

// Stream is one stream of choice: Choices first (each reduced modulo the
// options of its draw), then, if Seeded, the PCG stream of Tail, else
// zeros (the conservative choice everywhere).
type Stream struct {
	Choices []int
	Tail    uint64
	Seeded  bool
	// Bias, when above 0, makes a draw past Choices answer its largest
	// option once in Bias draws (biased faults: the runtime injects a
	// fault at the top of its draw's range). Recorded runs carry the
	// biased answers in Choices, so a replay needs no bias.
	Bias int
}

// Input is one run of a family: its three streams.
type Input struct {
	Plan, Schedule, Faults Stream
}

// SeedInput is the input that runs exactly seed's streams (plan.SeedStreams).
func SeedInput(seed uint64) Input {
	s := func(label string) Stream { return Stream{Tail: sim.Derive(seed, label), Seeded: true} }
	return Input{Plan: s("plan"), Schedule: s("schedule"), Faults: s("faults")}
}

// Streams are in's sources.
func (in Input) Streams() plan.Streams {
	return plan.Streams{Plan: in.Plan.source(), Schedule: in.Schedule.source(), Faults: in.Faults.source()}
}

func (s Stream) source() sim.Source {
	src := &streamSource{choices: s.Choices, bias: s.Bias}
	if s.Seeded {
		src.tail = sim.NewPCG(s.Tail)
		if s.Bias > 0 {
			src.biasDraw = sim.NewPCG(sim.Derive(s.Tail, "guided/bias"))
		}
	}
	return src
}

type streamSource struct {
	choices  []int
	pos      int
	tail     sim.Source // nil: zeros
	bias     int
	biasDraw sim.Source
}

func (s *streamSource) Intn(n int) int {
	if n <= 0 {
		panic(fmt.Sprintf("guided: Intn: n must be positive, got %d", n))
	}
	if s.pos < len(s.choices) {
		c := s.choices[s.pos]
		s.pos++
		return ((c % n) + n) % n
	}
	if s.tail == nil {
		return 0
	}
	if s.biasDraw != nil && s.biasDraw.Intn(s.bias) == 0 {
		return n - 1
	}
	return s.tail.Intn(n)
}
