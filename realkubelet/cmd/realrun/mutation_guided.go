package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/podsim/podsim/realkubelet/cmd/realrun/mutreport"
	"github.com/podsim/podsim/realkubelet/cmd/realrun/toolrun"
)

// realrun mutation --guided N [--corpus DIR]: after the seeded sweep,
// every survivor is judged by the gate's guided tier (gate_guided.go) on
// the schema build: N runs per family and mode of the guided loop with the
// mutant on (loop seed --start; with --corpus, from a copy of corpora
// grown on the unmutated tree, their entries first), and the inputs of its
// runs with findings run again with no mutant on. A key the mutant's run
// has and the unmutated run of the same input lacks kills it (status
// killed-guided; the first such run named by its index in the loop and
// its input). This is the per-input base a guided input needs: it exists
// only in the loop that drew it.

// guidedPass judges the survivors of ms, --parallel at a time (each
// loop runs one run at a time), until ctx ends, appending each verdict to
// mutation.jsonl as it comes (a mutant's later line supersedes its
// seeded one). A survivor whose pass an interrupt cut short stays a
// survivor, its reason saying so.
func (r *mutationRun) guidedPass(ctx context.Context, ms []mutreport.Mutant) {
	log, err := os.OpenFile(filepath.Join(r.outDir, "mutation.jsonl"), os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		progress("cannot keep the guided verdicts as they come: %v", err)
	}
	toolrun.Each(ctx, r.o.parallel, len(ms), func(i int) bool { return ms[i].Status == mutreport.Survived }, func(i int) {
		t0 := time.Now()
		if err := r.guidedOne(ctx, &ms[i]); err != nil {
			ms[i].Reason = "guided pass: " + err.Error()
		}
		ms[i].Seconds += time.Since(t0).Seconds()
	}, func(i int) {
		logMutant(log, ms[i])
		progress("guided pass, mutant %d: %s", ms[i].Index, mutreport.OneLine(ms[i], len(r.t.files) > 1))
	})
	if log != nil {
		log.Close()
	}
}

// guidedOne runs mutant m's guided loop and the unmutated runs of its
// inputs with findings, each into m's directory under guided/.
func (r *mutationRun) guidedOne(ctx context.Context, m *mutreport.Mutant) error {
	dir := filepath.Join(r.outDir, "guided", strconv.Itoa(m.Index))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	g := gate{o: r.o, vk: r.t.vk, outDir: dir}
	all := gateTiers(r.o)
	tiers, err := g.guidedCorpus(all[len(all)-1:]) // the guided tier, last
	if err != nil {
		return err
	}
	on, off := r.sd, r.sd
	on.env, off.env = []string{"PODSIM_MUTANT=" + strconv.Itoa(m.Index)}, []string{"PODSIM_MUTANT="}
	on.slot.Label, off.slot.Label = "the schema build, mutant "+strconv.Itoa(m.Index), "the schema build, no mutant"
	mutantRuns := filepath.Join(dir, "mutant-runs.json")
	cand, err := r.sweep(on, tiers[0], mutantRuns)
	var dead *toolrun.Died
	switch {
	case ctx.Err() != nil:
		return errors.New("interrupted")
	case errors.As(err, &dead):
		run, ok := dead.Run()
		if ok && run.Input != "" {
			if err := endsOn(r.sweep, off, tiers[0], run, dir); err != nil {
				return fmt.Errorf("the mutant's loop died (%v), and the unmutated build dies on the same input too (%v)", dead, err)
			}
		}
		m.Status, m.Reason = mutreport.Crash, "guided pass, mutant on: "+err.Error()
		if dead.Hung() {
			m.Status = mutreport.Hang
		}
		if ok {
			at(m, run)
		}
		return nil
	case err != nil:
		return err
	}
	t := tiers[0]
	t.Corpus, t.Inputs = "", mutantRuns
	base, err := r.sweep(off, t, filepath.Join(dir, "base-runs.json"))
	if ctx.Err() != nil {
		return errors.New("interrupted")
	}
	if err != nil {
		return err
	}
	m.GuidedRuns, m.GuidedFound = reportTier(t).RunsPerSide, len(cand)
	regs, _ := diffRuns(base, cand)
	if len(regs) == 0 {
		return nil
	}
	first := slices.MinFunc(regs, func(a, b change) int { return cmp.Compare(a.Seed, b.Seed) })
	m.Status, m.Family, m.Seed, m.Mode, m.Input = mutreport.Guided, first.Family, first.Seed, first.Mode, first.Input
	m.Keys = nil
	for _, c := range regs {
		if c.Seed == first.Seed && c.Family == first.Family && c.Mode == first.Mode && !slices.Contains(m.Keys, c.Key) {
			m.Keys = append(m.Keys, c.Key)
		}
	}
	return nil
}
