package guided

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/podsim/podsim/oracle/coverage"
	"github.com/podsim/podsim/run"
)

// TestNearMissesAreCorpusKeys: an oracle's near miss (coverage.Coverage.Near)
// is a corpus key of its own kind: a run whose only news is a near miss
// joins the corpus and owns it, the counts keep the kinds apart, a
// rarely met near miss puts its owner first in the replay order, and the
// keys survive a save and a load; a run meeting only known near misses
// joins nothing.
func TestNearMissesAreCorpusKeys(t *testing.T) {
	c := NewCorpus("swarm")
	in := func(n int) Input { return Input{Plan: Stream{Choices: []int{n}}} }
	base := coverage.Coverage{Tuples: []string{"a", "b"}, Transitions: [][2]int{{0, 1}}}
	near := func(keys ...string) coverage.Coverage { cov := base; cov.Near = keys; return cov }
	if n := c.Merge(in(0), near()); n != 3 {
		t.Fatalf("first run found %d keys, want 3", n)
	}
	for i := 1; i <= 3; i++ {
		c.Merge(in(1), near("liveness/L10/open-at-restart/UpdatePod-kill"))
	}
	if n := c.Merge(in(2), near("liveness/L10/open-at-restart/UpdatePod-kill")); n != 0 {
		t.Fatalf("a known near miss counted as %d new keys", n)
	}
	if n := c.Merge(in(3), near("linearize/query-in-transit/IsPodKnownTerminated/SyncPod-terminal/applied")); n != 1 {
		t.Fatalf("a new near miss counted as %d new keys, want 1", n)
	}
	if len(c.Entries) != 3 || c.Tuples() != 2 || c.Transitions() != 1 || c.Near() != 2 {
		t.Fatalf("%d entries, %d tuples, %d transitions, %d near misses; want 3, 2, 1, 2",
			len(c.Entries), c.Tuples(), c.Transitions(), c.Near())
	}
	var order []int
	for _, e := range c.ReplayOrder() {
		order = append(order, e.Input.Plan.Choices[0])
	}
	if want := []int{3, 1, 0}; !slices.Equal(order, want) { // rarest first: query-in-transit 1, open-at-restart 4, the tuples 6
		t.Fatalf("replay order %v, want %v", order, want)
	}
	dir := t.TempDir()
	if err := c.Save(dir); err != nil {
		t.Fatal(err)
	}
	loaded, err := Load(dir, "swarm")
	if err != nil {
		t.Fatal(err)
	}
	if string(corpusBytes(t, loaded)) != string(corpusBytes(t, c)) || loaded.Near() != 2 || loaded.Transitions() != 1 {
		t.Fatalf("the loaded corpus differs: %d near misses, %d transitions", loaded.Near(), loaded.Transitions())
	}
}

// TestNearMissOwnersStay: a full corpus evicts the oldest entry that owns
// no near miss rather than an older near miss's owner; with no near miss
// in the corpus it evicts the oldest, as before.
func TestNearMissOwnersStay(t *testing.T) {
	in := func(n int) Input { return Input{Plan: Stream{Choices: []int{n}}} }
	fill := func(withNear bool) *Corpus {
		c := NewCorpus("swarm")
		first := coverage.Coverage{Tuples: []string{"t0"}}
		if withNear {
			first.Near = []string{"liveness/L10/open-at-restart/UpdatePod-kill"}
		}
		c.Merge(in(0), first)
		for i := 1; len(c.Entries) < MaxEntries; i++ {
			c.Merge(in(i+1), coverage.Coverage{Tuples: []string{fmt.Sprintf("t%d", i)}}) // each owns a tuple reached once
		}
		return c
	}
	c := fill(true)
	c.Merge(in(-1), coverage.Coverage{Tuples: []string{"new"}})
	if len(c.Entries) != MaxEntries || c.Entries[0].Input.Plan.Choices[0] != 0 || c.Entries[1].Input.Plan.Choices[0] != 3 {
		t.Fatalf("evicted the wrong entry: the corpus starts with inputs %v", []int{c.Entries[0].Input.Plan.Choices[0], c.Entries[1].Input.Plan.Choices[0]})
	}
	plain := fill(false)
	plain.Merge(in(-1), coverage.Coverage{Tuples: []string{"new"}})
	if plain.Entries[0].Input.Plan.Choices[0] != 2 {
		t.Fatalf("without near misses the oldest entry should go: the corpus starts with input %d", plain.Entries[0].Input.Plan.Choices[0])
	}
}

// TestCallAfterShutdownIsAKeyOfTheLoop: the loop's runs record the call
// after Shutdown by its pod's tuple (coverage.Tracker.StoppedCalls, asked by
// the near-miss tracker): swarm-restart seed 1,984, in which a kill in
// flight meets the restart's stopped pod workers (the run mutant 467, no
// `p.stopped = true` in Shutdown, fails), has it; the same run without near
// misses, and seed 0, have none.
func TestCallAfterShutdownIsAKeyOfTheLoop(t *testing.T) {
	f := familyNamed("swarm-restart")
	const key = "liveness/L10/call-after-shutdown/P|-|-|grace|-|run|kill"
	_, r := RunInput(f, SeedInput(1984), run.CheckOptions{NearMisses: true, ObservableOnly: true})
	if !slices.Contains(r.Coverage.Near, key) {
		t.Errorf("seed 1984: near misses %q, want %q", r.Coverage.Near, key)
	}
	_, off := RunInput(f, SeedInput(1984), run.CheckOptions{ObservableOnly: true})
	_, zero := RunInput(f, SeedInput(0), run.CheckOptions{NearMisses: true, ObservableOnly: true})
	for _, c := range []struct {
		name string
		near []string
	}{{"seed 1984 without near misses", off.Coverage.Near}, {"seed 0", zero.Coverage.Near}} {
		for _, k := range c.near {
			if strings.Contains(k, "call-after-shutdown") {
				t.Errorf("%s: near miss %q", c.name, k)
			}
		}
	}
}
