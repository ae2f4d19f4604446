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
