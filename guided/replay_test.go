package guided

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/podsim/podsim/oracle/coverage"
	"github.com/podsim/podsim/run"
)

// TestReplayOrderRarestFirst: the entry owning the key the fewest runs
// reached comes first, an entry owning no key last, ties by age.
func TestReplayOrderRarestFirst(t *testing.T) {
	c := NewCorpus("early-kill")
	in := func(n int) Input { return Input{Plan: Stream{Choices: []int{n}}} }
	cov := func(tuples ...string) coverage.Coverage { return coverage.Coverage{Tuples: tuples} }
	c.Merge(in(0), cov("common"))         // entry 0 owns "common"
	c.Merge(in(1), cov("common", "rare")) // entry 1 owns "rare"
	c.Merge(in(2), cov("common", "mid"))  // entry 2 owns "mid"
	c.Merge(in(3), cov("common", "mid2")) // entry 3 owns "mid2"
	c.Merge(in(9), cov("common", "mid", "mid2"))
	c.Merge(in(9), cov("common"))
	if len(c.Entries) != 4 {
		t.Fatalf("%d entries, want 4", len(c.Entries))
	}
	c.Entries = append(c.Entries, Entry{ID: 99, Input: in(4)}) // owns nothing
	// hits: common 6, rare 1, mid 2, mid2 2.
	var got []int
	for _, e := range c.ReplayOrder() {
		got = append(got, e.Input.Plan.Choices[0])
	}
	if want := []int{1, 2, 3, 0, 4}; !slices.Equal(got, want) {
		t.Fatalf("replay order %v, want %v", got, want)
	}
}

// TestLoopReplaysTheCorpusFirst: with Options.Replay the loop's first runs
// are the kept entries in ReplayOrder, each the same run as when it joined
// (same code, same recorded input, same trace); replays leave the bandit's
// yield alone; and the whole is the same at any parallelism.
func TestLoopReplaysTheCorpusFirst(t *testing.T) {
	f := familyNamed("grace-shortening")
	grown := NewCorpus(f.Name)
	traces := map[string]string{}
	for _, o := range loopOutcomes(t, f, grown, 5, 40, 2, "") {
		traces[o.Input.Token()] = o.Result.TraceSHA
	}
	order := grown.ReplayOrder()
	if len(order) < 4 {
		t.Fatalf("the corpus kept %d entries: too few to test a replay", len(order))
	}
	replayed := func(parallel int) ([]Outcome, *Corpus) {
		c := NewCorpus(f.Name)
		*c = *grown
		c.Entries = slices.Clone(grown.Entries)
		c.keys = slices.Clone(grown.keys)
		c.index = map[string]int{}
		for i, k := range c.keys {
			c.index[k.name] = i
		}
		var outs []Outcome
		Loop(context.Background(), f, c, Options{Seed: 5, Runs: uint64(len(order)) + Batch, Parallel: parallel, Replay: true},
			func(o Outcome) { outs = append(outs, o) })
		return outs, c
	}
	outs, c := replayed(1)
	for i, e := range order {
		o := outs[i]
		if !o.Replay || o.Input.Token() != e.Input.Token() {
			t.Fatalf("run %d: replay=%v input %s, want the entry %d of the replay order", i, o.Replay, o.Input.Token(), e.ID)
		}
		if want := traces[e.Input.Token()]; o.Result.TraceSHA != want {
			t.Fatalf("run %d: a replayed entry gave trace %s, %s when it joined", i, o.Result.TraceSHA, want)
		}
	}
	for _, o := range outs[len(order):] {
		if o.Replay {
			t.Fatalf("run %d replays past the corpus", o.Index)
		}
	}
	if c.FreshRuns+c.MutatedRuns != grown.FreshRuns+grown.MutatedRuns+Batch {
		t.Fatalf("the bandit counted %d runs, want %d: replays are not its draws",
			c.FreshRuns+c.MutatedRuns, grown.FreshRuns+grown.MutatedRuns+Batch)
	}
	again, _ := replayed(3)
	if !slices.Equal(fingerprint(outs), fingerprint(again)) {
		t.Fatal("a replaying loop made other runs at parallel 1 and 3")
	}
}

// TestReplayFindsAChange: a corpus grown on the correct code, replayed on
// a changed one (catalogued mutant G1: a kill of a finished pod never fires its
// completion Event), fails on
// some replayed entry, and that entry passes on the correct code.
func TestReplayFindsAChange(t *testing.T) {
	f := familyNamed("grace-shortening")
	grown := NewCorpus(f.Name)
	loopOutcomes(t, f, grown, 5, 64, 2, "")
	var outs []Outcome
	Loop(context.Background(), f, grown, Options{Seed: 5, Runs: uint64(len(grown.Entries)), Parallel: 2, Replay: true,
		Check: run.CheckOptions{Mutant: "G1"}}, func(o Outcome) { outs = append(outs, o) })
	for _, o := range outs {
		if o.Replay && o.Result.Failed() {
			if _, r := RunInput(f, o.Input, run.CheckOptions{}); r.Failed() {
				t.Fatalf("the entry fails on the correct code too: %s", r)
			}
			return
		}
	}
	t.Fatalf("G1 survived the replay of %d entries", len(outs))
}

// TestReplayOrderGivesNearMissesEveryNthTurn: every NearEvery-th replay is
// the next owner of a near miss (the one whose near miss the fewest runs
// reached first), the others follow the rarest key, each entry once; with
// no near miss in the corpus the order is the rarest order alone.
func TestReplayOrderGivesNearMissesEveryNthTurn(t *testing.T) {
	in := func(n int) Input { return Input{Plan: Stream{Choices: []int{n}}} }
	build := func(withNear bool) *Corpus {
		c := NewCorpus("swarm")
		// Entries 0..19 each own one tuple, reached 1, 2, …, 20 times: the
		// rarest order is 0, 1, …, 19.
		for i := 0; i < 20; i++ {
			cov := coverage.Coverage{Tuples: []string{fmt.Sprintf("t%d", i)}}
			if withNear && (i == 17 || i == 18 || i == 3) {
				// 17, 18 and 3 own near misses reached 25, 26 and 30
				// times: rarer than any other near miss, commoner than
				// every tuple.
				cov.Near = []string{fmt.Sprintf("n%d", i)}
			}
			c.Merge(in(i), cov)
		}
		for i := 1; i < 20; i++ {
			for j := 0; j < i; j++ {
				c.Merge(in(99), coverage.Coverage{Tuples: []string{fmt.Sprintf("t%d", i)}})
			}
		}
		for j := 0; withNear && j < 29; j++ {
			near := []string{"n3"}
			if j < 24 {
				near = append(near, "n17")
			}
			if j < 25 {
				near = append(near, "n18")
			}
			c.Merge(in(99), coverage.Coverage{Near: near})
		}
		return c
	}
	order := func(c *Corpus) []int {
		var got []int
		for _, e := range c.ReplayOrder() {
			got = append(got, e.Input.Plan.Choices[0])
		}
		return got
	}
	var rarest []int
	for i := 0; i < 20; i++ {
		rarest = append(rarest, i)
	}
	if got := order(build(false)); !slices.Equal(got, rarest) {
		t.Fatalf("without near misses: replay order %v, want the rarest order %v", got, rarest)
	}
	// Turn 8 (index 7) goes to 17, turn 16 to 18; 3 came in the rarest
	// order before its near-miss turn, so no entry repeats.
	want := []int{0, 1, 2, 3, 4, 5, 6, 17, 7, 8, 9, 10, 11, 12, 13, 18, 14, 15, 16, 19}
	if NearEvery != 8 {
		t.Fatalf("the test assumes NearEvery 8, it is %d", NearEvery)
	}
	if got := order(build(true)); !slices.Equal(got, want) {
		t.Fatalf("with near misses: replay order %v, want %v", got, want)
	}
}

// TestReplayOrderTiesByKeysFound: of entries whose rarest keys were
// reached equally often, the one that reached the most keys first when it
// joined comes first, then the oldest; a rarer key still comes before
// more keys found.
func TestReplayOrderTiesByKeysFound(t *testing.T) {
	c := NewCorpus("swarm")
	in := func(n int) Input { return Input{Plan: Stream{Choices: []int{n}}} }
	tuples := func(names ...string) coverage.Coverage { return coverage.Coverage{Tuples: names} }
	c.Merge(in(0), tuples("a0"))                   // found 1
	c.Merge(in(1), tuples("b0", "b1", "b2"))       // found 3
	c.Merge(in(2), tuples("c0"))                   // found 1
	c.Merge(in(3), tuples("d0", "d1"))             // found 2
	c.Merge(in(4), tuples("e0", "e1", "e2", "e3")) // found 4, but reached again below
	c.Merge(in(9), tuples("e0", "e1", "e2", "e3"))
	// Every key reached once but e's (twice): 1 (3 found), 3 (2), 0 and
	// 2 (1 each, by age), then 4.
	var got []int
	for _, e := range c.ReplayOrder() {
		got = append(got, e.Input.Plan.Choices[0])
	}
	if want := []int{1, 3, 0, 2, 4}; !slices.Equal(got, want) {
		t.Fatalf("replay order %v, want %v", got, want)
	}
}
