package main

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/run"
)

// TestSweepOrderAndBound: outcomes come out in job order whatever order
// the workers finish in, and while job 0 is held up no more than the
// window of later jobs is started (the reorder buffer is bounded).
func TestSweepOrderAndBound(t *testing.T) {
	fams := []plan.Family{{Name: "a"}, {Name: "b"}}
	p := newSweepPlan(fams, shard{1, 3}, 100, 3000) // 1000 seeds per family: 101, 104, …
	var started, emitted atomic.Int64
	var maxAhead atomic.Int64
	release := make(chan struct{})
	work := func(j job) outcome {
		n := started.Add(1)
		for ahead := n - emitted.Load(); ; {
			if m := maxAhead.Load(); ahead <= m || maxAhead.CompareAndSwap(m, ahead) {
				break
			}
		}
		if j.family.Name == "a" && j.seed == 101 {
			<-release // job 0 finishes last of its window
		}
		return outcome{res: run.Result{Family: j.family.Name, Seed: j.seed}}
	}
	go func() {
		for started.Load() < 64 {
			time.Sleep(time.Millisecond)
		}
		time.Sleep(20 * time.Millisecond)
		close(release)
	}()
	var got []run.Result
	n := sweep(context.Background(), p, 4, work, func(o outcome) {
		emitted.Add(1)
		got = append(got, o.res)
	})
	if n != 2000 || len(got) != 2000 {
		t.Fatalf("emitted %d (%d), want 2000", n, len(got))
	}
	for i, r := range got {
		want := p.job(uint64(i))
		if r.Family != want.family.Name || r.Seed != want.seed {
			t.Fatalf("outcome %d is %s/%d, want %s/%d", i, r.Family, r.Seed, want.family.Name, want.seed)
		}
	}
	if got[0].Seed != 101 || got[999].Seed != 3098 || got[1000].Family != "b" {
		t.Fatalf("plan: first %d, last of a %d, then %s", got[0].Seed, got[999].Seed, got[1000].Family)
	}
	if window := int64(max(64, 16*4)); maxAhead.Load() > window+1 {
		t.Fatalf("%d jobs started ahead of the first unemitted one; the window is %d", maxAhead.Load(), window)
	}
}

// TestSweepCancelEmitsAPrefix: after cancellation the jobs in flight
// finish and what is emitted is jobs 0..n-1, no gap.
func TestSweepCancelEmitsAPrefix(t *testing.T) {
	p := newSweepPlan([]plan.Family{{Name: "a"}}, shard{0, 1}, 0, 100000)
	ctx, cancel := context.WithCancel(context.Background())
	var next uint64
	n := sweep(ctx, p, 3, func(j job) outcome {
		if j.seed == 500 {
			cancel()
		}
		return outcome{res: run.Result{Seed: j.seed}}
	}, func(o outcome) {
		if o.res.Seed != next {
			t.Fatalf("emitted seed %d, want %d", o.res.Seed, next)
		}
		next++
	})
	if n != next || n < 501 || n >= 100000 {
		t.Fatalf("emitted %d (%d): want the first 501 or more, not all", n, next)
	}
}

// TestSweepPlanPerFamilyCounts: with a budget per family, each family's
// jobs are the shard's seeds of its own range, families in order; a family
// with no seed in the shard has no job.
func TestSweepPlanPerFamilyCounts(t *testing.T) {
	fams := []plan.Family{{Name: "a"}, {Name: "b"}, {Name: "c"}}
	p := newSweepPlanOf(fams, shard{1, 2}, 10, []uint64{3, 1, 5})
	var got []string
	for i := range p.total() {
		j := p.job(i)
		got = append(got, fmt.Sprintf("%s/%d", j.family.Name, j.seed))
	}
	if want := "a/11 c/11 c/13"; strings.Join(got, " ") != want {
		t.Fatalf("jobs %v, want %s", got, want)
	}
}

// TestDefaultBudget: without --seeds every family runs defaultSeeds, or
// its declared minimum sweep when that is larger (grace-shortening's
// 1,500), so a sweep on defaults judges every family's coverage marks;
// --seeds N runs N of each, as before.
func TestDefaultBudget(t *testing.T) {
	p, err := runFlags{scenario: "all", seeds: defaultSeeds}.plan()
	if err != nil {
		t.Fatal(err)
	}
	raised := 0
	for k, f := range p.families {
		if want := max(defaultSeeds, f.MinimumSeeds()); p.counts[k] != want {
			t.Errorf("%s: %d seeds by default, want %d", f.Name, p.counts[k], want)
		}
		if p.counts[k] > defaultSeeds {
			raised++
		}
		if p.counts[k] < f.MinimumSeeds() {
			t.Errorf("%s: the default %d seeds are fewer than its minimum %d: its marks would not be judged",
				f.Name, p.counts[k], f.MinimumSeeds())
		}
	}
	if g, ok := plan.FamilyNamed("grace-shortening"); !ok || g.MinimumSeeds() <= defaultSeeds || raised == 0 {
		t.Errorf("no family is raised to its minimum (grace-shortening's is %d): the test proves nothing", g.MinimumSeeds())
	}
	p, err = runFlags{scenario: "all", seeds: 7, seedsGiven: true}.plan()
	if err != nil {
		t.Fatal(err)
	}
	if p.total() != 7*uint64(len(plan.Families())) {
		t.Errorf("--seeds 7: %d jobs, want 7 per family", p.total())
	}
}
