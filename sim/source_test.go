package sim

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestReplayClampsAndRunsDry(t *testing.T) {
	r := NewReplay([]int{2, 7, -1})
	got := []int{r.Intn(3), r.Intn(3), r.Intn(3), r.Intn(3), r.Intn(5)}
	if want := []int{2, 1, 2, 0, 0}; !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if r.Clamped() != 2 || r.Exhausted() != 2 {
		t.Fatalf("got clamped %d exhausted %d, want 2 and 2", r.Clamped(), r.Exhausted())
	}
}

func TestBytesSource(t *testing.T) {
	b := NewBytes([]byte{5, 1, 2})
	got := []int{b.Intn(3), b.Intn(1000), b.Intn(4)}
	// 5%3, (1<<8|2)%1000, then dry.
	if want := []int{2, 258, 0}; !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestPCGIsASeededStream(t *testing.T) {
	draw := func(seed uint64) []int {
		p := NewPCG(seed)
		out := make([]int, 20)
		for i := range out {
			out[i] = p.Intn(1000)
		}
		return out
	}
	if !slices.Equal(draw(1), draw(1)) {
		t.Fatal("same seed, different draws")
	}
	if slices.Equal(draw(1), draw(2)) {
		t.Fatal("different seeds, same draws")
	}
	// Reseed: a stream drawn from, reseeded, is NewPCG's of the new seed.
	p := NewPCG(2)
	p.Intn(1000)
	p.Reseed(1)
	for i, want := range draw(1) {
		if got := p.Intn(1000); got != want {
			t.Fatalf("reseeded draw %d: %d, fresh %d", i, got, want)
		}
	}
}

func TestDeriveSeparatesStreams(t *testing.T) {
	seen := map[uint64]string{}
	for seed := uint64(0); seed < 100; seed++ {
		for _, label := range []string{"plan", "schedule", "faults"} {
			d := Derive(seed, label)
			if prev, dup := seen[d]; dup {
				t.Fatalf("Derive(%d, %q) collides with %s", seed, label, prev)
			}
			seen[d] = label
		}
	}
	if a, b := Derive(7, "plan"), Derive(7, "plan"); a != b {
		t.Fatal("Derive is not a function")
	}
}

func TestIntnRejectsNonPositive(t *testing.T) {
	for _, src := range []Source{NewPCG(0), NewReplay(nil), NewBytes(nil)} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%T.Intn(0) did not panic", src)
				}
			}()
			src.Intn(0)
		}()
	}
}

// TestPCGIntnIsRandIntN: PCG.Intn draws what math/rand/v2's Rand.IntN
// draws over the same PCG, for powers of two, small bounds and bounds near
// 2⁶³, where a quarter or more of the words are drawn again (the
// rejection a broken copy of the reduction would get wrong).
func TestPCGIntnIsRandIntN(t *testing.T) {
	bounds := []int{1, 2, 3, 5, 7, 8, 1000, 1 << 20, 1<<62 + 1, 3<<61 + 7, math.MaxInt64}
	for seed := range uint64(50) {
		p, r := NewPCG(seed), rand.New(rand.NewPCG(seed, Derive(seed, "pcg/stream")))
		for i := range 400 {
			n := bounds[i%len(bounds)]
			if got, want := p.Intn(n), r.IntN(n); got != want {
				t.Fatalf("seed %d, draw %d: Intn(%d) = %d, rand.IntN %d", seed, i, n, got, want)
			}
		}
	}
}
