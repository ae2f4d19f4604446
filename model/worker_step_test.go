package model

import (
	"slices"
	"strings"
	"testing"

	"github.com/podsim/podsim/model/ops"
)

// TestWorkerStepSemantics: a marker applies whichever worker critical
// section the record enables; several are all kept; none changes nothing.
// (Each state is stepped with Step, as Replay's witness mode does in
// place: no closure; model/check's TestInPlaceAgreesWithStep checks that
// the two agree.)
func TestWorkerStepSemantics(t *testing.T) {
	a := pod("a", 1)
	w := ops.WorkerStep{UID: "a"}
	witness := func(seq ...ops.Op) []State { return stepEach(t, seq...) }
	describeAll := func(states []State) string {
		var out []string
		for _, s := range states {
			out = append(out, describeA(s))
		}
		return strings.Join(out, " | ")
	}
	rows := []struct {
		name string
		ops  []ops.Op
		want string
	}{
		{"unknown UID: nothing", []ops.Op{do(w)}, ""},
		{"pending: take", []ops.Op{do(upd(ops.Create, a)), do(w)}, "a S grace=- pending=- flight=SyncPod(taken)"},
		{"nothing pending: nothing", []ops.Op{do(upd(ops.Create, a)), do(w), do(beginSync("a", ops.Create, 1)), do(end("a", ops.SyncPod, ops.OK)), do(w), do(w)},
			"a S grace=- pending=-"},
		{"in a callback: nothing", []ops.Op{do(upd(ops.Create, a)), do(w), do(beginSync("a", ops.Create, 1)), do(w)},
			"a S grace=- pending=- flight=SyncPod(begun)"},
		{"after a SyncPod take: nothing (no recorded failed read)", []ops.Op{do(upd(ops.Create, a)), do(w), do(w)},
			"a S grace=- pending=- flight=SyncPod(taken)"},
		{"after a terminating take: ack", []ops.Op{do(upd(ops.Kill, a)), do(w), do(w)},
			"a T grace=30 pending=- flight=SyncTerminatingPod(taken)"},
		{"failed read after a take, then its section: the pass ends", []ops.Op{do(upd(ops.Create, a)), do(w), do(ops.StatusReadFailed{UID: "a"}), do(w)},
			"a S grace=- pending=-"},
		{"failed read of a terminating pass: it ends unacknowledged", []ops.Op{do(upd(ops.Kill, a)), do(w), do(ops.StatusReadFailed{UID: "a"}), do(w)},
			"a TR grace=30 pending=-"},
		{"runtime-only take: ack", []ops.Op{do(runtimeKill("a")), do(w), do(w)},
			"a T deleted runtime grace=1 pending=- flight=SyncTerminatingRuntimePod(taken)"},
		{"returned: complete", []ops.Op{do(upd(ops.Kill, a)), do(w), do(w), do(beginTerminating("a", 1, 30)), do(end("a", ops.SyncTerminatingPod, ops.OK)), do(w)},
			"a D grace=30 pending=sync@v1"},
		{"static waiter: nothing", []ops.Op{do(upd(ops.Create, staticPod("b", "web", 1))), do(upd(ops.Create, staticPod("a", "web", 1))), do(w)},
			"a P static grace=- pending=create@v1"},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			if got := describeAll(witness(row.ops...)); got != row.want {
				t.Errorf("got  %q\nwant %q", got, row.want)
			}
		})
	}
	// A marker is a critical section: not while an obligation is due, and it
	// closes an idle worker's cancellation window.
	inFlight := witness(do(upd(ops.Create, a)), do(w), do(beginSync("a", ops.Create, 1)), do(upd(ops.Kill, a)))
	if _, err := Step(inFlight[0], w, nil); err == nil || !strings.Contains(err.Error(), "cancel/a must happen first") {
		t.Errorf("marker while a cancel is due: %v", err)
	}
	idleKill := witness(do(upd(ops.Create, a)), do(w), do(beginSync("a", ops.Create, 1)), do(end("a", ops.SyncPod, ops.OK)), do(w), do(upd(ops.Kill, a)))
	next, err := Step(idleKill[0], w, nil)
	if err != nil || len(next[0].MayCancel) != 0 {
		t.Errorf("marker after an idle kill: may-cancel %v, %v", next[0].MayCancel, err)
	}
}

// stepEach steps every state with Step from the initial state, keeping the
// distinct outcomes: what Replay's witness mode holds on one part.
func stepEach(t *testing.T, seq ...ops.Op) []State {
	t.Helper()
	states := []State{NewState()}
	for i, o := range seq {
		var next []State
		var errs []error
		for _, s := range states {
			succ, err := Step(s, o.Input, o.Output)
			if err != nil {
				errs = append(errs, err)
			}
			for _, n := range succ {
				if !slices.ContainsFunc(next, n.Equal) {
					next = append(next, n)
				}
			}
		}
		if len(next) == 0 {
			t.Fatalf("op %d %s: %v", i, ops.Describe(o.Input, o.Output), reasons(errs))
		}
		states = next
	}
	return states
}

// TestTerminatingGraceFork: the one fork of the model no input decides.
// A kill that shortens the grace between the take of a terminating pass
// and its acknowledgement leaves two graces SyncTerminatingPod may be
// given: the record's at the take (upstream passes the grace of the update
// it took) and at the acknowledgement (podsim's workers pass the record's
// grace there). The markers pin both instants, so each arm is exact; which
// one a target passes is its implementation's choice, so both are kept
// (docs/design.md, "The reference model's forks"). Any other grace is refused.
func TestTerminatingGraceFork(t *testing.T) {
	a := pod("a", 1)
	w := ops.WorkerStep{UID: "a"}
	override := func(g int64) ops.KillOptions { return ops.KillOptions{HasGraceOverride: true, GraceOverride: g} }
	taken := stepEach(t, do(killOpts(a, override(20))), do(w), do(killOpts(a, override(10))), do(ops.CancelFired{UID: "a"}), do(w))
	if len(taken) != 1 || taken[0].records()[0].Flight.TakeGrace != 20 || taken[0].records()[0].Flight.AckGrace != 10 {
		t.Fatalf("got states %v, want one with grace 20 at the take and 10 at the acknowledgement", taken)
	}
	for _, tt := range []struct {
		grace int64
		want  string // "" accepted
	}{
		{20, ""}, // the take's arm (upstream)
		{10, ""}, // the acknowledgement's arm (podsim's workers)
		{15, "SyncTerminatingPod begins with grace 15, want 10 (at ack) or 20 (at take) (S11)"},
		{30, "SyncTerminatingPod begins with grace 30, want 10 (at ack) or 20 (at take) (S11)"},
	} {
		_, err := Step(taken[0], beginTerminating("a", 1, tt.grace), nil)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("grace %d: got %v, want it accepted", tt.grace, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("grace %d: got %v, want %q", tt.grace, err, tt.want)
		}
	}
	// With nothing in between, the two arms are one grace: no fork.
	plain := stepEach(t, do(killOpts(a, override(20))), do(w), do(w))
	if _, err := Step(plain[0], beginTerminating("a", 1, 10), nil); err == nil || !strings.Contains(err.Error(), "want 20 (S11)") {
		t.Errorf("no kill between take and acknowledgement, grace 10: got %v, want only 20", err)
	}
}
