package run

import (
	"fmt"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/oracle/linearize"
	"github.com/podsim/podsim/sim"
)

// A corruption turns a recorded history into a (probably) violating one:
// it edits the chosen operation in place, so the effect order keeps every
// operation at its recorded effect point (inside its interval). Hence a
// legal witness replay of a corrupted history is still a linearization,
// and "witness ok ⇒ porcupine Ok" must hold for every corruption. pick
// selects the operations a corruption applies to; apply returns false if
// it cannot apply to the chosen one.
type corruption struct {
	name  string
	pick  func(h history.History, i int) bool // i indexes h.Ops
	apply func(h *history.History, i int, src sim.Source)
}

var corruptions = []corruption{
	{"flip-query", isInput[ops.Query], func(h *history.History, i int, _ sim.Source) {
		h.Ops[i].Output = !h.Ops[i].Output.(ops.Answer)
	}},
	{"flip-killnow", isInput[ops.KillPodNowDone], func(h *history.History, i int, _ sim.Source) {
		h.Ops[i].Output = !h.Ops[i].Output.(ops.Answer)
	}},
	{"drop-fired", isFired, func(h *history.History, i int, _ sim.Source) { dropOp(h, i) }},
	{"drop-callback", either(isInput[ops.SyncBegin], isInput[ops.SyncEnd]), func(h *history.History, i int, _ sim.Source) {
		dropOp(h, i)
	}},
	{"begin-version", isInput[ops.SyncBegin], func(h *history.History, i int, src sim.Source) {
		b := h.Ops[i].Input.(ops.SyncBegin)
		b.Version += pickOf(src, -1, 1)
		h.Ops[i].Input = b
	}},
	{"begin-grace", isTerminatingBegin, func(h *history.History, i int, src sim.Source) {
		b := h.Ops[i].Input.(ops.SyncBegin)
		b.Grace += int64(pickOf(src, -1, 1))
		h.Ops[i].Input = b
	}},
	{"end-outcome", isInput[ops.SyncEnd], func(h *history.History, i int, src sim.Source) {
		e := h.Ops[i].Input.(ops.SyncEnd)
		e.Outcome = (e.Outcome + ops.Outcome(1+src.Intn(2))) % 3
		h.Ops[i].Input = e
	}},
	{"update-type", isInput[ops.UpdatePod], func(h *history.History, i int, src sim.Source) {
		u := h.Ops[i].Input.(ops.UpdatePod)
		u.Type = (u.Type + ops.UpdateType(1+src.Intn(3))) % 4
		h.Ops[i].Input = u
	}},
	{"known-pods", isNonEmptyKnown, func(h *history.History, i int, src sim.Source) {
		known := slices.Clone(h.Ops[i].Output.(ops.KnownPods))
		k := &known[src.Intn(len(known))]
		switch src.Intn(3) {
		case 0:
			k.State = (k.State + 1) % 3
		case 1:
			k.Orphan = !k.Orphan
		default:
			k.HasConfig = !k.HasConfig
		}
		h.Ops[i].Output = known
	}},
	{"reorder-pod", hasLaterSamePod, func(h *history.History, i int, _ sim.Source) {
		// Swap the contents of this operation and the next one of the same
		// pod in effect order: each keeps the other's interval.
		j := nextSamePod(*h, i)
		h.Ops[i].Input, h.Ops[j].Input = h.Ops[j].Input, h.Ops[i].Input
		h.Ops[i].Output, h.Ops[j].Output = h.Ops[j].Output, h.Ops[i].Output
	}},
}

func isInput[T ops.Input](h history.History, i int) bool { _, ok := h.Ops[i].Input.(T); return ok }

func either(a, b func(history.History, int) bool) func(history.History, int) bool {
	return func(h history.History, i int) bool { return a(h, i) || b(h, i) }
}

func isFired(h history.History, i int) bool {
	return isInput[ops.CompletionFired](h, i) || isInput[ops.CancelFired](h, i)
}

func isTerminatingBegin(h history.History, i int) bool {
	b, ok := h.Ops[i].Input.(ops.SyncBegin)
	return ok && b.Fn == ops.SyncTerminatingPod
}

func isNonEmptyKnown(h history.History, i int) bool {
	k, ok := h.Ops[i].Output.(ops.KnownPods)
	return ok && len(k) > 0
}

func hasLaterSamePod(h history.History, i int) bool { return nextSamePod(h, i) >= 0 }

// nextSamePod is the next operation of the same pod after Ops[i] in effect
// order, with different content, or -1.
func nextSamePod(h history.History, i int) int {
	uid := ops.UIDOf(h.Ops[i].Input.(ops.Input))
	if uid == "" {
		return -1
	}
	pos := slices.IndexFunc(h.Effects, func(e history.Effect) bool { return e.Op == i })
	for _, e := range h.Effects[pos+1:] {
		if e.Op >= 0 && ops.UIDOf(h.Ops[e.Op].Input.(ops.Input)) == uid {
			if fmt.Sprint(h.Ops[e.Op].Input, h.Ops[e.Op].Output) == fmt.Sprint(h.Ops[i].Input, h.Ops[i].Output) {
				return -1
			}
			return e.Op
		}
	}
	return -1
}

// clone copies the parts of a history corruptions edit.
func cloneHistory(h history.History) history.History {
	h.Ops = slices.Clone(h.Ops)
	h.Effects = slices.Clone(h.Effects)
	return h
}

// drop removes Ops[i] from both orders.
func dropOp(h *history.History, i int) {
	h.Ops = slices.Delete(h.Ops, i, i+1)
	h.Effects = slices.DeleteFunc(h.Effects, func(e history.Effect) bool { return e.Op == i })
	for k := range h.Effects {
		if h.Effects[k].Op > i {
			h.Effects[k].Op--
		}
	}
}

// corrupt applies c to one operation it picks, chosen by src; false if no
// operation qualifies.
func corrupt(h history.History, c corruption, src sim.Source) (history.History, bool) {
	var candidates []int
	for i := range h.Ops {
		if c.pick(h, i) {
			candidates = append(candidates, i)
		}
	}
	if len(candidates) == 0 {
		return h, false
	}
	out := cloneHistory(h)
	c.apply(&out, candidates[src.Intn(len(candidates))], src)
	return out, true
}

// agreement counts, per corruption, what the witness and porcupine said.
type agreement struct {
	histories, witnessFailed, illegal, unknown, benign int
}

// TestWitnessAgreesWithPorcupine checks the witness against porcupine on
// recorded histories and on corrupted copies of them: the witness may only
// accept what porcupine accepts, and when it rejects, porcupine's verdict
// is the verdict. About 1,050 seeds give the 10,000 histories of make
// sweep; make test checks 2,000, which still meets every corruption
// 100-200 times and sees porcupine catch each of them at least 30 times
// (the log's table), the witness failing alone on four kinds.
func TestWitnessAgreesWithPorcupine(t *testing.T) {
	want := int(sweepBudget(10_000, 2_000, 400))
	start := time.Now()
	counts := map[string]*agreement{}
	total := 0
	swarm := familyNamed(t, "swarm")
	for seed := uint64(0); total < want; seed++ {
		r := recordSeed(swarm, seed, sim.RandomWalk{})
		src := sim.NewPCG(sim.Derive(seed, "corrupt"))
		variants := []struct {
			name string
			h    history.History
		}{{"none", r.h}}
		for _, c := range corruptions {
			if h, ok := corrupt(r.h, c, src); ok {
				variants = append(variants, struct {
					name string
					h    history.History
				}{c.name, h})
			}
		}
		for _, vr := range variants {
			total++
			checkAgreement(t, seed, vr.name, vr.h, counts)
		}
		if t.Failed() {
			return
		}
	}
	logAgreement(t, counts, total, time.Since(start))
	if c := counts["none"]; c != nil && c.illegal > 0 {
		t.Errorf("%d uncorrupted histories were Illegal", c.illegal)
	}
}

func checkAgreement(t *testing.T, seed uint64, name string, h history.History, counts map[string]*agreement) {
	t.Helper()
	v := linearize.CheckHistory(h, linearize.Options{ForcePorcupine: true})
	c := counts[name]
	if c == nil {
		c = &agreement{}
		counts[name] = c
	}
	c.histories++
	if !v.Witness {
		c.witnessFailed++
	}
	switch {
	case v.Witness && v.Porcupine != porcupine.Ok:
		t.Errorf("seed %d, corruption %s: witness replay ok, porcupine %s; want Ok\n%s", seed, name, v.Porcupine, linearize.WitnessText(h, v))
	case !v.Witness && v.Result != v.Porcupine:
		t.Errorf("seed %d, corruption %s: verdict %s, porcupine %s; want porcupine's", seed, name, v.Result, v.Porcupine)
	case name == "none" && v.Result == porcupine.Illegal:
		t.Errorf("seed %d: uncorrupted history Illegal: %s\n%s", seed, v.Reason, linearize.WitnessText(h, v))
	}
	switch v.Porcupine {
	case porcupine.Illegal:
		c.illegal++
	case porcupine.Unknown:
		c.unknown++
	}
	if !v.Witness && v.Porcupine == porcupine.Ok {
		c.benign++
	}
}

func logAgreement(t *testing.T, counts map[string]*agreement, total int, elapsed time.Duration) {
	names := make([]string, 0, len(counts))
	for name := range counts {
		names = append(names, name)
	}
	sort.Strings(names)
	t.Logf("%d histories in %v (%.0f µs each, witness and porcupine)", total, elapsed.Round(time.Millisecond),
		float64(elapsed.Microseconds())/float64(max(total, 1)))
	t.Logf("%-14s %9s %14s %12s %8s %16s", "corruption", "histories", "witness fails", "caught", "unknown", "witness-only fail")
	for _, name := range names {
		c := counts[name]
		t.Logf("%-14s %9d %14d %5d (%3.0f%%) %8d %16d", name, c.histories, c.witnessFailed, c.illegal,
			100*float64(c.illegal)/float64(max(c.histories, 1)), c.unknown, c.benign)
	}
}

// pickOf returns one of xs, chosen by src.
func pickOf[T any](src sim.Source, xs ...T) T { return xs[src.Intn(len(xs))] }
