package sim

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
)

// Source is the one place every nondeterministic choice comes from: which
// goroutine runs next, which waiter gets a released mutex, every jitter value
// a simulated program draws. Intn returns a number in [0, n).
//
// Choice 0 is the conservative one everywhere ("keep running the current
// goroutine", "the oldest waiter"), so a Source that runs dry and answers 0
// degrades to a plain cooperative schedule, and a shrinker that lowers
// choices towards 0 removes preemptions. A choice with a single option is
// never drawn, so recorded choice lists hold only real decisions.
type Source interface {
	Intn(n int) int
}

// PCG is a seeded permuted-congruential generator (math/rand/v2): the
// default Source for seed sweeps.
type PCG struct {
	src rand.PCG
}

// NewPCG returns the PCG stream for seed. Use Derive to give each consumer
// of one seed (plan, schedule, faults) its own independent stream.
func NewPCG(seed uint64) *PCG {
	p := &PCG{}
	p.Reseed(seed)
	return p
}

// Reseed makes p the stream NewPCG(seed) returns, from its first draw (p
// keeps no state but the PCG's), so that a lane of seeds
// reuses its streams (package run's Lane).
func (p *PCG) Reseed(seed uint64) {
	p.src.Seed(seed, Derive(seed, "pcg/stream"))
}

// Intn implements Source: rand.New(&p.src).IntN(n), the same draws
// (TestPCGIntnIsRandIntN), without a Rand's call through an interface
// for each word. It is math/rand/v2's reduction (Rand.uint64n; its 32-bit
// form gives the same values): a power of two masks the word; otherwise
// the high word of word × n, a word whose low product falls below
// 2⁶⁴ mod n drawn again (Lemire's method).
func (p *PCG) Intn(n int) int {
	checkN(n)
	m := uint64(n)
	if m&(m-1) == 0 {
		return int(p.src.Uint64() & (m - 1))
	}
	hi, lo := bits.Mul64(p.src.Uint64(), m)
	if lo < m {
		for thresh := -m % m; lo < thresh; {
			hi, lo = bits.Mul64(p.src.Uint64(), m)
		}
	}
	return int(hi)
}

// Derive returns the seed of the child stream called label. Different labels
// give statistically independent streams, so adding draws to one consumer
// (say, the plan) never shifts the choices of another (the schedule).
func Derive(seed uint64, label string) uint64 {
	// FNV-1a of the label, mixed with the seed by two SplitMix64 rounds.
	h := uint64(14695981039346656037)
	for i := 0; i < len(label); i++ {
		h ^= uint64(label[i])
		h *= 1099511628211
	}
	return splitmix(splitmix(seed) ^ h)
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// Replay answers with a recorded list of choices, in order: the way a failing
// schedule is re-run. Past the end it answers 0 and counts the shortfall; a
// recorded choice too large for the options now offered is reduced modulo n
// and counted, so an edited or shrunk list still runs.
type Replay struct {
	choices   []int
	pos       int
	exhausted int
	clamped   int
}

// NewReplay returns a Source that replays choices.
func NewReplay(choices []int) *Replay { return &Replay{choices: choices} }

// Intn implements Source.
func (r *Replay) Intn(n int) int {
	checkN(n)
	if r.pos >= len(r.choices) {
		r.exhausted++
		return 0
	}
	c := r.choices[r.pos]
	r.pos++
	if c < 0 || c >= n {
		r.clamped++
		c = ((c % n) + n) % n
	}
	return c
}

// Exhausted is how many draws came after the list ran out.
func (r *Replay) Exhausted() int { return r.exhausted }

// Clamped is how many recorded choices did not fit their draw.
func (r *Replay) Clamped() int { return r.clamped }

// Recorder passes draws through to another Source and keeps them, so any run
// can be replayed with NewReplay(rec.Choices()).
type Recorder struct {
	src     Source
	choices []int
}

// NewRecorder wraps src.
func NewRecorder(src Source) *Recorder { return &Recorder{src: src} }

// Intn implements Source.
func (r *Recorder) Intn(n int) int {
	c := r.src.Intn(n)
	r.choices = append(r.choices, c)
	return c
}

// Choices returns a copy of the draws so far.
func (r *Recorder) Choices() []int { return append([]int(nil), r.choices...) }

// Bytes draws choices from a byte string, for `go test -fuzz`: the fuzzer's
// mutations become schedule changes. Past the end it answers 0.
type Bytes struct {
	b   []byte
	pos int
}

// NewBytes returns a Source over b.
func NewBytes(b []byte) *Bytes { return &Bytes{b: b} }

// Intn implements Source. Up to 256 options take one byte, more take two
// (bounded schedulers never offer more than 65,536).
func (s *Bytes) Intn(n int) int {
	checkN(n)
	width := 1
	if n > 256 {
		width = 2
	}
	v := 0
	for i := 0; i < width; i++ {
		v <<= 8
		if s.pos < len(s.b) {
			v |= int(s.b[s.pos])
			s.pos++
		}
	}
	return v % n
}

func checkN(n int) {
	if n <= 0 {
		panic(fmt.Sprintf("sim: Intn: n must be positive, got %d", n))
	}
}
