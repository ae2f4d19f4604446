package scenarios

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

	"github.com/podsim/podsim/model"
	"github.com/podsim/podsim/model/check"
	"github.com/podsim/podsim/sim"
)

// tamper sits between the World and an oracle and rewrites the first event
// edit wants to rewrite: how these tests make the correct workers produce
// a violating history.
type tamper struct {
	next Observer
	edit func(ev Event) ([]Event, bool)
	done bool
}

func (t *tamper) Observe(w *World, ev Event) {
	if !t.done {
		if evs, ok := t.edit(ev); ok {
			t.done = true
			for _, e := range evs {
				t.next.Observe(w, e)
			}
			return
		}
	}
	t.next.Observe(w, ev)
}

// Edits, each of a kind of event the model must reject when changed.
var (
	// A completion fired twice: S14 ("fired but is not due").
	fireTwice = func(ev Event) ([]Event, bool) {
		_, ok := ev.Input.(model.CompletionFired)
		return []Event{ev, ev}, ev.Kind == Fired && ok
	}
	// A callback entered twice: S1 ("begins while … is in flight").
	beginTwice = func(ev Event) ([]Event, bool) { return []Event{ev, ev}, ev.Kind == CallbackBegin }
	// SyncTerminatingPod given a larger grace: S11.
	wrongGrace = func(ev Event) ([]Event, bool) {
		b, ok := ev.Input.(model.SyncBegin)
		if !ok || b.Fn != model.SyncTerminatingPod {
			return nil, false
		}
		b.Grace += 7
		ev.Input = b
		return []Event{ev}, true
	}
	// IsPodTerminationRequested answering wrong: no S-number in the reason.
	wrongAnswer = func() func(ev Event) ([]Event, bool) {
		query := map[int]bool{}
		return func(ev Event) ([]Event, bool) {
			if q, ok := ev.Input.(model.Query); ok && ev.Kind == ClientCall && q.Kind == model.IsPodTerminationRequested {
				query[ev.ID] = true
			}
			if ev.Kind != ClientReturn || !query[ev.ID] {
				return nil, false
			}
			ev.Output = !ev.Output.(model.Answer)
			return []Event{ev}, true
		}
	}
)

// tamperedRun runs the first swarm seed whose history the edit applies to,
// with the oracle behind a tamper; it returns the oracle's findings.
func tamperedRun(t *testing.T, o *linearizability, edit func() func(Event) ([]Event, bool)) (*World, []Violation) {
	t.Helper()
	swarm := familyNamed(t, "swarm")
	for seed := uint64(0); seed < 200; seed++ {
		st := SeedStreams(seed)
		w := NewWorld(swarm.Generate(st.Plan), st.Schedule, st.Faults, sim.RandomWalk{})
		tp := &tamper{next: o, edit: edit()}
		o.rec = NewRecorder()
		w.Observe(tp)
		err := w.Run()
		if !tp.done {
			continue
		}
		o.opts.Reproduce = "go run ./cmd/simrun replay --scenario swarm --seed " + strconv.FormatUint(seed, 10)
		return w, o.Finish(w, err)
	}
	t.Fatal("no seed in 200 has the event to tamper with")
	return nil, nil
}

func TestLinearizabilityReportsIllegal(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func() func(Event) ([]Event, bool)
		want string
	}{
		{"completion fired twice", func() func(Event) ([]Event, bool) { return fireTwice }, "S14"},
		{"callback entered twice", func() func(Event) ([]Event, bool) { return beginTwice }, "S1"},
		{"grace not the record's", func() func(Event) ([]Event, bool) { return wrongGrace }, "S11"},
		{"query answers wrong", wrongAnswer, "model"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := newLinearizability(CheckOptions{}).(*linearizability)
			_, viol := tamperedRun(t, o, tc.edit)
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
	o := newLinearizability(CheckOptions{PorcupineTimeout: time.Millisecond, ArtifactDir: dir}).(*linearizability)
	o.check = slowCheck
	_, viol := tamperedRun(t, o, func() func(Event) ([]Event, bool) { return fireTwice })
	if len(viol) != 1 {
		t.Fatalf("got %d violations %v, want 1: a timeout is never a pass", len(viol), viol)
	}
	if v := viol[0]; v.Invariant != "unknown" || !strings.Contains(v.Message, "unknown (porcupine timed out after 1ms") {
		t.Errorf("got %s: %q, want unknown (porcupine timed out after 1ms …)", v.Invariant, v.Message)
	}
	if _, err := os.Stat(filepath.Join(dir, ArtifactHTML)); err != nil {
		t.Errorf("got %v, want the HTML written for an unknown verdict too", err)
	}
}

func TestLinearizabilityArtifacts(t *testing.T) {
	var files [2]map[string]string
	var trace string
	for i := range files {
		dir := t.TempDir()
		o := newLinearizability(CheckOptions{ArtifactDir: dir}).(*linearizability)
		w, viol := tamperedRun(t, o, func() func(Event) ([]Event, bool) { return fireTwice })
		if len(viol) != 1 {
			t.Fatalf("got %v, want one violation", viol)
		}
		trace = w.S.Trace()
		files[i] = map[string]string{}
		for _, name := range []string{ArtifactVerdict, ArtifactHTML, ArtifactWitness, ArtifactTrace} {
			data, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatalf("got %v, want %s written", err, name)
			}
			files[i][name] = string(data)
		}
	}
	verdict := files[0][ArtifactVerdict]
	if strings.Count(verdict, "\n") != 1 || !strings.HasPrefix(verdict, "FAIL linearizability S14") ||
		!strings.Contains(verdict, "reproduce: go run ./cmd/simrun replay --scenario swarm --seed ") {
		t.Errorf("got verdict %q, want one line: FAIL linearizability S14 … reproduce: …", verdict)
	}
	if got := files[0][ArtifactTrace]; got != trace {
		t.Errorf("got a trace of %d bytes, want the scheduler's %d", len(got), len(trace))
	}
	for _, want := range []string{`"Tag":"clock"`, `"Tag":"sync worker/`, "completion#"} {
		if !strings.Contains(files[0][ArtifactHTML], want) {
			t.Errorf("got HTML without %q, want annotations and operations", want)
		}
	}
	if !strings.Contains(files[0][ArtifactWitness], "<<< ") {
		t.Errorf("got witness without the failure mark:\n%s", files[0][ArtifactWitness])
	}
	for name, data := range files[0] {
		if files[1][name] != data {
			t.Errorf("%s differs between two replays of the same run, want identical bytes", name)
		}
	}
}

func TestLinearizabilityNoArtifactsWhenPassing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	st := SeedStreams(3)
	w := NewWorld(GenerateSwarm(st.Plan), st.Schedule, st.Faults, sim.RandomWalk{})
	o := newLinearizability(CheckOptions{ArtifactDir: dir})
	w.Observe(o)
	err := w.Run()
	// A failed run still gets its prefix checked; this one is fine.
	if viol := o.Finish(w, errors.Join(err, errors.New("pretend the run failed"))); len(viol) != 0 {
		t.Fatalf("got %v, want no violation", viol)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("got %v, want no artifact directory for a passing run", err)
	}
}
