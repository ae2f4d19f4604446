package run

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/check"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/oracle"
	"github.com/podsim/podsim/oracle/linearize"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
	"github.com/podsim/podsim/world"
)

// tamper sits between the World and an oracle and rewrites the first event
// edit wants to rewrite: how these tests make the correct workers produce
// a violating history.
type tamper struct {
	next oracle.Oracle
	edit func(ev history.Event) ([]history.Event, bool)
	done bool
}

func (t *tamper) Observe(v oracle.View, ev *history.Event) {
	if !t.done {
		if evs, ok := t.edit(*ev); ok {
			t.done = true
			for _, e := range evs {
				t.next.Observe(v, &e)
			}
			return
		}
	}
	t.next.Observe(v, ev)
}

func (t *tamper) Finish(v oracle.View, err error) []history.Violation { return t.next.Finish(v, err) }

// Edits, each of a kind of event the model must reject when changed.
var (
	// A completion fired twice: S14 ("fired but is not due").
	fireTwice = func(ev history.Event) ([]history.Event, bool) {
		_, ok := ev.Input.(ops.CompletionFired)
		return []history.Event{ev, ev}, ev.Kind == history.Fired && ok
	}
	// A callback entered twice: S1 ("begins while … is in flight").
	beginTwice = func(ev history.Event) ([]history.Event, bool) {
		return []history.Event{ev, ev}, ev.Kind == history.CallbackBegin
	}
	// SyncTerminatingPod given a larger grace: S11.
	wrongGrace = func(ev history.Event) ([]history.Event, bool) {
		b, ok := ev.Input.(ops.SyncBegin)
		if !ok || b.Fn != ops.SyncTerminatingPod {
			return nil, false
		}
		b.Grace += 7
		ev.Input = b
		return []history.Event{ev}, true
	}
	// IsPodTerminationRequested answering wrong: no S-number in the reason.
	wrongAnswer = func() func(ev history.Event) ([]history.Event, bool) {
		query := map[int]bool{}
		return func(ev history.Event) ([]history.Event, bool) {
			if q, ok := ev.Input.(ops.Query); ok && ev.Kind == history.ClientCall && q.Kind == ops.IsPodTerminationRequested {
				query[ev.ID] = true
			}
			if ev.Kind != history.ClientReturn || !query[ev.ID] {
				return nil, false
			}
			ev.Output = !ev.Output.(ops.Answer)
			return []history.Event{ev}, true
		}
	}
)

// tamperedRun runs the first swarm seed whose history the edit applies to,
// with a linearizability oracle of opts behind a tamper; it returns the
// oracle's findings.
func tamperedRun(t *testing.T, opts linearize.Options, edit func() func(history.Event) ([]history.Event, bool)) (*world.World, []history.Violation) {
	t.Helper()
	swarm := familyNamed(t, "swarm")
	for seed := uint64(0); seed < 200; seed++ {
		st := plan.SeedStreams(seed)
		w := world.NewWorld(swarm.Generate(st.Plan), st.Schedule, st.Faults, sim.RandomWalk{})
		opts.Reproduce = "go run ./cmd/simrun replay --scenario swarm --seed " + strconv.FormatUint(seed, 10)
		opts.Trace = w.S.Trace
		tp := &tamper{next: linearize.New(opts), edit: edit()}
		view := w.View()
		w.Observe(func(ev history.Event) { tp.Observe(view, &ev) })
		err := w.Run()
		if !tp.done {
			continue
		}
		return w, tp.Finish(view, err)
	}
	t.Fatal("no seed in 200 has the event to tamper with")
	return nil, nil
}

func TestLinearizabilityReportsIllegal(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func() func(history.Event) ([]history.Event, bool)
		want string
	}{
		{"completion fired twice", func() func(history.Event) ([]history.Event, bool) { return fireTwice }, "S14"},
		{"callback entered twice", func() func(history.Event) ([]history.Event, bool) { return beginTwice }, "S1"},
		{"grace not the record's", func() func(history.Event) ([]history.Event, bool) { return wrongGrace }, "S11"},
		{"query answers wrong", wrongAnswer, "model"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, viol := tamperedRun(t, linearize.Options{}, tc.edit)
			if len(viol) != 1 {
				t.Fatalf("got %d violations %v, want 1", len(viol), viol)
			}
			v := viol[0]
			if v.Oracle != "linearizability" || v.Invariant != tc.want {
				t.Errorf("got %s %s, want linearizability %s (%s)", v.Oracle, v.Invariant, tc.want, v.Message)
			}
			if !strings.Contains(v.Message, "not linearizable (porcupine: Illegal") || v.Seq == 0 {
				t.Errorf("got message %q at event %d, want porcupine's Illegal and the event", v.Message, v.Seq)
			}
		})
	}
}

// slowCheck is porcupine over a model whose every step takes 20 ms: with a
// 1 ms bound the search cannot finish, whatever the machine.
func slowCheck(history []porcupine.Operation, timeout time.Duration) (porcupine.CheckResult, porcupine.LinearizationInfo) {
	m := check.PorcupineModel()
	stepContext, step := m.StepContext, m.Step
	m.StepContext = func(ctx context.Context, state, in, out any) (bool, any) {
		time.Sleep(20 * time.Millisecond)
		if stepContext != nil {
			return stepContext(ctx, state, in, out)
		}
		return step(state, in, out)
	}
	return porcupine.CheckOperationsVerbose(m, history, timeout)
}

func TestLinearizabilityReportsUnknown(t *testing.T) {
	dir := t.TempDir()
	opts := linearize.Options{PorcupineTimeout: time.Millisecond, ArtifactDir: dir, Search: slowCheck}
	_, viol := tamperedRun(t, opts, func() func(history.Event) ([]history.Event, bool) { return fireTwice })
	if len(viol) != 1 {
		t.Fatalf("got %d violations %v, want 1: a timeout is never a pass", len(viol), viol)
	}
	if v := viol[0]; v.Invariant != "unknown" || !strings.Contains(v.Message, "unknown (porcupine timed out after 1ms") {
		t.Errorf("got %s: %q, want unknown (porcupine timed out after 1ms …)", v.Invariant, v.Message)
	}
	if _, err := os.Stat(filepath.Join(dir, linearize.ArtifactHTML)); err != nil {
		t.Errorf("got %v, want the HTML written for an unknown verdict too", err)
	}
}

func TestLinearizabilityArtifacts(t *testing.T) {
	var files [2]map[string]string
	var trace string
	for i := range files {
		dir := t.TempDir()
		w, viol := tamperedRun(t, linearize.Options{ArtifactDir: dir}, func() func(history.Event) ([]history.Event, bool) { return fireTwice })
		if len(viol) != 1 {
			t.Fatalf("got %v, want one violation", viol)
		}
		trace = w.S.Trace()
		files[i] = map[string]string{}
		for _, name := range []string{linearize.ArtifactVerdict, linearize.ArtifactHTML, linearize.ArtifactWitness, linearize.ArtifactTrace} {
			data, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatalf("got %v, want %s written", err, name)
			}
			files[i][name] = string(data)
		}
	}
	verdict := files[0][linearize.ArtifactVerdict]
	if strings.Count(verdict, "\n") != 1 || !strings.HasPrefix(verdict, "FAIL linearizability S14") ||
		!strings.Contains(verdict, "reproduce: go run ./cmd/simrun replay --scenario swarm --seed ") {
		t.Errorf("got verdict %q, want one line: FAIL linearizability S14 … reproduce: …", verdict)
	}
	if got := files[0][linearize.ArtifactTrace]; got != trace {
		t.Errorf("got a trace of %d bytes, want the scheduler's %d", len(got), len(trace))
	}
	for _, want := range []string{`"Tag":"clock"`, `"Tag":"sync worker/`, "completion#"} {
		if !strings.Contains(files[0][linearize.ArtifactHTML], want) {
			t.Errorf("got HTML without %q, want annotations and operations", want)
		}
	}
	if !strings.Contains(files[0][linearize.ArtifactWitness], "<<< ") {
		t.Errorf("got witness without the failure mark:\n%s", files[0][linearize.ArtifactWitness])
	}
	for name, data := range files[0] {
		if files[1][name] != data {
			t.Errorf("%s differs between two replays of the same run, want identical bytes", name)
		}
	}
}

func TestLinearizabilityNoArtifactsWhenPassing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	st := plan.SeedStreams(3)
	w := world.NewWorld(plan.GenerateSwarm(st.Plan), st.Schedule, st.Faults, sim.RandomWalk{})
	o := linearize.New(linearize.Options{ArtifactDir: dir})
	view := w.View()
	w.Observe(func(ev history.Event) { o.Observe(view, &ev) })
	err := w.Run()
	// A failed run still gets its prefix checked; this one is fine.
	if viol := o.Finish(view, errors.Join(err, errors.New("pretend the run failed"))); len(viol) != 0 {
		t.Fatalf("got %v, want no violation", viol)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("got %v, want no artifact directory for a passing run", err)
	}
}
