package guided

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"io"
	"strings"

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

// tokenPrefix marks the version of the token encoding.
const tokenPrefix = "g1:"

// Token writes in as one printable word (deflated varints, base64url):
// what simrun prints for a failing guided run and replay --input reads.
func (in Input) Token() string {
	var raw []byte
	for _, s := range []Stream{in.Plan, in.Schedule, in.Faults} {
		flags := uint64(0)
		if s.Seeded {
			flags = 1
		}
		raw = binary.AppendUvarint(raw, flags)
		raw = binary.AppendUvarint(raw, s.Tail)
		raw = binary.AppendUvarint(raw, uint64(s.Bias))
		raw = binary.AppendUvarint(raw, uint64(len(s.Choices)))
		for _, c := range s.Choices {
			raw = binary.AppendUvarint(raw, uint64(max(c, 0)))
		}
	}
	var b bytes.Buffer
	w, _ := flate.NewWriter(&b, flate.BestCompression)
	w.Write(raw)
	w.Close()
	return tokenPrefix + base64.RawURLEncoding.EncodeToString(b.Bytes())
}

// maxTokenChoices bounds a stream read from a token.
const maxTokenChoices = 1 << 22

// ParseToken reads a Token; anything else is an error.
func ParseToken(token string) (Input, error) {
	body, ok := strings.CutPrefix(strings.TrimSpace(token), tokenPrefix)
	if !ok {
		return Input{}, fmt.Errorf("not a guided input: want %q followed by base64url", tokenPrefix)
	}
	packed, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil {
		return Input{}, fmt.Errorf("not a guided input: %v", err)
	}
	raw, err := io.ReadAll(io.LimitReader(flate.NewReader(bytes.NewReader(packed)), 8*maxTokenChoices))
	if err != nil {
		return Input{}, fmt.Errorf("not a guided input: %v", err)
	}
	r := bytes.NewReader(raw)
	var streams [3]Stream
	for i := range streams {
		if streams[i], err = readStream(r); err != nil {
			return Input{}, fmt.Errorf("not a guided input: stream %d: %v", i, err)
		}
	}
	if r.Len() != 0 {
		return Input{}, fmt.Errorf("not a guided input: %d bytes after the streams", r.Len())
	}
	return Input{Plan: streams[0], Schedule: streams[1], Faults: streams[2]}, nil
}

func readStream(r *bytes.Reader) (Stream, error) {
	var v [4]uint64
	for i := range v {
		x, err := binary.ReadUvarint(r)
		if err != nil {
			return Stream{}, err
		}
		v[i] = x
	}
	if v[0] > 1 || v[2] > 1<<20 || v[3] > maxTokenChoices {
		return Stream{}, fmt.Errorf("implausible header %v", v)
	}
	s := Stream{Seeded: v[0] == 1, Tail: v[1], Bias: int(v[2])}
	for n := v[3]; n > 0; n-- {
		c, err := binary.ReadUvarint(r)
		if err != nil || c > 1<<31 {
			return Stream{}, fmt.Errorf("bad choice")
		}
		s.Choices = append(s.Choices, int(c))
	}
	return s, nil
}
