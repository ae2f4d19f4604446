package run

import (
	"flag"
	"testing"
)

// longSweeps gives this package's correct-code sweeps their full budgets
// (`make sweep` sets it). Without it, in `make test`, each runs a CI budget:
// enough seeds that every family's plans, both strategies and the oracles'
// rarer paths are exercised on every commit, while the evidence that the
// oracles raise no false alarm over many seeds is `make sweep`'s, with the
// full sweep of every family beside it. -short (make race) runs smaller
// budgets still.
var longSweeps = flag.Bool("long", false, "the correct-code sweeps' full budgets (make sweep)")

// sweepBudget is long under -long, short under -short, else ci.
func sweepBudget(long, ci, short uint64) uint64 {
	switch {
	case *longSweeps:
		return long
	case testing.Short():
		return short
	}
	return ci
}
