package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/podsim/podsim/plan"
)

// TestUnreachedMarks: a declared mark at zero fails a sweep of at least the
// family's minimum seeds, naming family and mark; a shorter sweep warns;
// a reached mark is silent.
func TestUnreachedMarks(t *testing.T) {
	f, _ := plan.FamilyNamed("swarm")
	missing := f.Marks[len(f.Marks)-1]
	reached := func(m string) uint64 {
		if m == missing {
			return 0
		}
		return 1
	}
	var out, warn bytes.Buffer
	if n := unreachedMarks(&out, &warn, "swarm", f.MinimumSeeds(), reached); n != 1 ||
		!strings.Contains(out.String(), "UNREACHED swarm: mark "+missing) || warn.Len() != 0 {
		t.Errorf("at the minimum: got %d, out %q, warn %q", n, out.String(), warn.String())
	}
	out.Reset()
	if n := unreachedMarks(&out, &warn, "swarm", f.MinimumSeeds()-1, reached); n != 0 || out.Len() != 0 ||
		!strings.Contains(warn.String(), "warning: swarm: mark(s) "+missing+" unreached") {
		t.Errorf("below the minimum: got %d, out %q, warn %q", n, out.String(), warn.String())
	}
	warn.Reset()
	if n := unreachedMarks(&out, &warn, "swarm", 10*f.MinimumSeeds(), func(string) uint64 { return 1 }); n != 0 ||
		out.Len()+warn.Len() != 0 {
		t.Errorf("every mark reached: got %d, out %q, warn %q", n, out.String(), warn.String())
	}
}

// TestRunWarnsOnShortSweep: a one-seed sweep of grace-shortening (whose
// rare mark needs 1,500 seeds) warns and still passes.
func TestRunWarnsOnShortSweep(t *testing.T) {
	out, errOut, code := simrun(t, nil, "run", "--scenario", "grace-shortening", "--seeds", "1", "--no-timing")
	if code != 0 || !strings.Contains(errOut, "warning: grace-shortening: mark(s) killnow-timed-out unreached in 1 seeds") {
		t.Errorf("got exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// TestSweepSummaryJudgesEveryFamilysMarks: a run's summary judges each
// family row it holds against that family's declared marks and minimum
// (what run turns into exit 1): a row at the minimum with a declared mark
// at zero counts one unreached mark, named with its family; a row of a
// family that reached all of its marks counts none.
func TestSweepSummaryJudgesEveryFamilysMarks(t *testing.T) {
	short, _ := plan.FamilyNamed("static-fullname-chain")
	full, _ := plan.FamilyNamed("early-kill")
	all := func(f plan.Family) map[string]uint64 {
		m := map[string]uint64{}
		for _, mark := range f.Marks {
			m[mark] = 3
		}
		return m
	}
	missing := all(short)
	missing[short.Marks[0]] = 0
	sum := &summary{rows: []*familyRow{
		{name: short.Name, seeds: short.MinimumSeeds(), marks: missing},
		{name: full.Name, seeds: full.MinimumSeeds(), marks: all(full)},
	}}
	var out, warn bytes.Buffer
	if n := sum.unreached(&out, &warn); n != 1 || warn.Len() != 0 ||
		out.String() != "UNREACHED "+short.Name+": mark "+short.Marks[0]+" reached in 0 of 200 seeds (the family's minimum is 200)\n" {
		t.Errorf("got %d unreached, out %q, warn %q", n, out.String(), warn.String())
	}
}
