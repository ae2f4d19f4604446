package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"

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
//
// With corpusDir set, each family's loop starts from the corpus saved there
// (guided.Load) and replays its entries first (Options.Replay).
func guidedSweep(fams []plan.Family, start, runs uint64, corpusDir string) (v mutation.Verdict) {
	h := sha256.New()
	defer func() { v.Digest = hex.EncodeToString(h.Sum(nil)) }()
	for _, f := range fams {
		ctx, stop := context.WithCancel(context.Background())
		c, replay := guided.NewCorpus(f.Name), false
		if corpusDir != "" {
			loaded, err := guided.Load(corpusDir, f.Name)
			if err != nil {
				fmt.Fprintln(os.Stderr, "sweep:", err)
				os.Exit(2)
			}
			c, replay = loaded, true
		}
		first := c.Runs
		guided.Loop(ctx, f, c, guided.Options{Seed: start, Runs: runs, Parallel: 1, Check: opts, Replay: replay, ReplayByAge: replayByAge},
			func(o guided.Outcome) {
				v.Runs++
				h.Write([]byte(o.Result.TraceSHA))
				if o.Result.Failed() {
					if !v.Killed {
						v.SeedsPerFamily = o.Index - first + 1
					}
					failed(&v, "guided", f.Name, o.Index-first, o.Result)
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
