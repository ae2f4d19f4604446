package realkubelet

import (
	"flag"
	"testing"
	"testing/synctest"

	"github.com/podsim/podsim/plan"
)

var dbgFam = flag.String("dbg.family", "", "")
var dbgSeed = flag.Uint64("dbg.seed", 0, "")
var dbgHold = flag.Bool("dbg.hold", false, "")

func TestDbg(t *testing.T) {
	if *dbgFam == "" {
		t.Skip()
	}
	for _, f := range plan.Families() {
		if f.Name != *dbgFam {
			continue
		}
		var r Result
		synctest.Test(t, func(t *testing.T) { r = RunSeedWith(f, *dbgSeed, RunOptions{HoldWakes: *dbgHold}) })
		for _, m := range r.Moves {
			t.Log("move ", m)
		}
		for _, l := range r.Trace {
			t.Log(l)
		}
		for _, x := range r.Findings {
			t.Log(x)
		}
	}
}
