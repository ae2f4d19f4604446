package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"

	"github.com/podsim/podsim/guided"
	"github.com/podsim/podsim/internal/mutation"
	"github.com/podsim/podsim/plan"
)

// guidedSweep runs a guided corpus loop (guided.Loop, loop seed start) of
// runs runs on each family in turn, and stops at the first failing run:
// Verdict.Seed is that run's index in its family's loop, SeedsPerFamily
// the runs the loop needed (index + 1), Strategy "guided". The batch in
// flight still finishes (Runs counts it); results come in index order, so
// the first failing index is exact.
func guidedSweep(fams []plan.Family, start, runs uint64) (v mutation.Verdict) {
	h := sha256.New()
	defer func() { v.Digest = hex.EncodeToString(h.Sum(nil)) }()
	for _, f := range fams {
		ctx, stop := context.WithCancel(context.Background())
		guided.Loop(ctx, f, guided.NewCorpus(f.Name), guided.Options{Seed: start, Runs: runs, Parallel: 1, Check: opts},
			func(o guided.Outcome) {
				v.Runs++
				h.Write([]byte(o.Result.TraceSHA))
				if o.Result.Failed() {
					if !v.Killed {
						v.SeedsPerFamily = o.Index + 1
					}
					failed(&v, "guided", f.Name, o.Index, o.Result)
					if !count {
						stop()
					}
				}
			})
		stop()
		if v.Killed && !count {
			return v
		}
	}
	return v
}
