package realdriver

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/podsim/podsim/plan"
)

// gateToy is a target of two families and two modes: seed s of family b
// in mode hold finds "X C1", every seed divisible by 3 "Y C2"; its
// guided loop's run i has the input token "tok-FAMILY-MODE-i" and the
// keys of seed i; a token run again gives that seed's keys.
func gateToy() GateTarget {
	keys := func(f plan.Family, mode string, seed uint64) []string {
		var out []string
		if f.Name == "b" && mode == "hold" {
			out = append(out, "X C1")
		}
		if seed%3 == 0 {
			out = append(out, "Y C2")
		}
		return out
	}
	return GateTarget{Families: []plan.Family{{Name: "a"}, {Name: "b"}}, Modes: []string{"plain", "hold"}, Seed: keys,
		Guided: func(f plan.Family, mode string, start func(uint64, string), emit func(uint64, string, []string)) {
			for i := range uint64(3) {
				start(i, fmt.Sprintf("given-%s-%s-%d", f.Name, mode, i))
				emit(i, fmt.Sprintf("tok-%s-%s-%d", f.Name, mode, i), keys(f, mode, i))
			}
		},
		Input: func(f plan.Family, mode string, token string) ([]string, error) {
			var fam, m string
			var i uint64
			if _, err := fmt.Sscanf(strings.ReplaceAll(token, "-", " "), "tok %s %s %d", &fam, &m, &i); err != nil || fam != f.Name || m != mode {
				return nil, fmt.Errorf("token %q is not of %s %s", token, f.Name, mode)
			}
			return keys(f, mode, i), nil
		}}
}

// gateSweep runs the gate tool on gateToy with these flag values and
// reads its run list and progress lines.
func gateSweep(t *testing.T, modes, strategy, inputs, only string, seeds int) ([]GateRun, string) {
	return gateSweepEvery(t, modes, strategy, inputs, only, seeds, 4, false)
}

func gateSweepEvery(t *testing.T, modes, strategy, inputs, only string, seeds, every int, beats bool) ([]GateRun, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "runs.json")
	var log strings.Builder
	GateFlags{&out, &modes, &strategy, &inputs, &every, &log, &beats}.Sweep(t, gateToy(), only, seeds, 5)
	b, err := os.ReadFile(out)
	var runs []GateRun
	if err == nil {
		err = json.Unmarshal(b, &runs)
	}
	if err != nil {
		t.Fatalf("the run list: %v", err)
	}
	return runs, log.String()
}

func runNames(runs []GateRun) string {
	var s []string
	for _, r := range runs {
		s = append(s, fmt.Sprintf("%s/%s/%d/%s=%s", ModeOf(r), r.Family, r.Seed, r.Input, strings.Join(r.Keys, "+")))
	}
	return strings.Join(s, " ")
}

// TestGateSweepWritesTheRunsWithFindings: the seeded tool writes, mode by
// mode, family by family, seed by seed, the runs with findings and their
// keys, and a progress line every -gate.progress runs and at the end; the
// guided one names each run by its index and input token; -gate.inputs
// runs those inputs again, in their own family and mode, and gives the
// same list on the same target.
func TestGateSweepWritesTheRunsWithFindings(t *testing.T) {
	runs, log := gateSweep(t, "plain,hold", "random", "", "", 3)
	want := "plain/a/6/=Y C2 plain/b/6/=Y C2 hold/a/6/=Y C2 hold/b/5/=X C1 hold/b/6/=X C1+Y C2 hold/b/7/=X C1"
	if got := runNames(runs); got != want {
		t.Errorf("seeded runs %s\nwant %s", got, want)
	}
	wantLog := "gate: 4 of 12 runs, 1 with findings (last: b plain seed 5)\n" +
		"gate: 8 of 12 runs, 3 with findings (last: a hold seed 6)\n" +
		"gate: 12 of 12 runs, 6 with findings (last: b hold seed 7)\n"
	if log != wantLog {
		t.Errorf("progress %q\nwant %q", log, wantLog)
	}
	runs, _ = gateSweep(t, "hold", "guided", "", "b", 3)
	want = "hold/b/0/tok-b-hold-0=X C1+Y C2 hold/b/1/tok-b-hold-1=X C1 hold/b/2/tok-b-hold-2=X C1"
	if got := runNames(runs); got != want {
		t.Errorf("guided runs %s\nwant %s", got, want)
	}
	file := filepath.Join(t.TempDir(), "guided.json")
	b, _ := json.Marshal(runs)
	os.WriteFile(file, b, 0o644)
	again, log := gateSweep(t, "plain", "random", file, "", 0)
	if got := runNames(again); got != want {
		t.Errorf("the guided inputs run again: %s\nwant %s", got, want)
	}
	if !strings.HasSuffix(log, "gate: 3 of 3 runs, 3 with findings (last: b hold run 2)\n") {
		t.Errorf("the inputs' progress %q", log)
	}
}

// TestGateSweepBeats: with -gate.beats every run is named as it starts
// (a guided run, in the loop or run again from -gate.inputs, by its index
// and the token of its input) and as it ends; a progress line stands for
// its run's end.
func TestGateSweepBeats(t *testing.T) {
	_, log := gateSweepEvery(t, "plain", "random", "", "a", 2, 2, true)
	want := "gate: run a plain seed 5\ngate: ran a plain seed 5\ngate: run a plain seed 6\ngate: 2 of 2 runs, 1 with findings (last: a plain seed 6)\n"
	if log != want {
		t.Errorf("seeded beats %q\nwant %q", log, want)
	}
	runs, log := gateSweepEvery(t, "hold", "guided", "", "b", 2, 0, true)
	if want := "gate: run b hold run 0 input given-b-hold-0\ngate: ran b hold run 0\ngate: run b hold run 1 input given-b-hold-1\n" +
		"gate: ran b hold run 1\ngate: run b hold run 2 input given-b-hold-2\ngate: ran b hold run 2\n"; log != want {
		t.Errorf("guided beats %q\nwant %q", log, want)
	}
	file := filepath.Join(t.TempDir(), "guided.json")
	b, _ := json.Marshal(runs[:1])
	os.WriteFile(file, b, 0o644)
	if _, log := gateSweepEvery(t, "plain", "random", file, "", 0, 0, true); log != "gate: run b hold run 0 input tok-b-hold-0\ngate: ran b hold run 0\n" {
		t.Errorf("the inputs' beats %q", log)
	}
}

// TestGateSweepRefuses: a mode or family the target has not, an unknown
// strategy and an input the target cannot run each fail the tool with
// one line saying which; without -gate.out or any run it skips.
func TestGateSweepRefuses(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte(`[{"family":"a","seed":1,"hold":true,"keys":["Y C2"],"input":"tok-a-plain-1"}]`), 0o644)
	stranger := filepath.Join(t.TempDir(), "stranger.json")
	os.WriteFile(stranger, []byte(`[{"family":"c","seed":1,"keys":["Y C2"],"input":"tok-c-plain-1"}]`), 0o644)
	for _, c := range []struct{ modes, strategy, inputs, only, want string }{
		{"plain,fast", "random", "", "", `-gate.modes: unknown mode "fast" (want plain or hold)`},
		{"plain", "random", "", "c", `-sweep.family: no family "c" on this target`},
		{"plain", "pct", "", "", `-gate.strategy: unknown strategy "pct"`},
		{"plain", "random", bad, "", `a run 1: token "tok-a-plain-1" is not of a hold`},
		{"plain", "random", stranger, "", `run 1: no family "c" on this target`},
	} {
		got := fatalOf(func(tb testing.TB) {
			out, every, modes, strategy, inputs := filepath.Join(t.TempDir(), "x.json"), 0, c.modes, c.strategy, c.inputs
			GateFlags{&out, &modes, &strategy, &inputs, &every, nil, nil}.Sweep(tb, gateToy(), c.only, 2, 1)
		})
		if !strings.Contains(got, c.want) || strings.Contains(got, "\n") {
			t.Errorf("%+v: failed with %q, want one line containing %q", c, got, c.want)
		}
	}
	t.Run("skips", func(t *testing.T) {
		none, every, modes, strategy := "", 0, "plain", "random"
		GateFlags{&none, &modes, &strategy, &none, &every, nil, nil}.Sweep(t, gateToy(), "", 2, 1)
		t.Error("ran without -gate.out")
	})
}

// fatalTB records the first Fatalf and ends the function that called it.
type fatalTB struct {
	testing.TB
	msg string
}

func (f *fatalTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	panic(f)
}

func (f *fatalTB) Fatal(args ...any) { f.Fatalf("%s", fmt.Sprint(args...)) }

// fatalOf runs fn with a TB whose Fatalf ends fn, and returns its message
// ("" if fn returned).
func fatalOf(fn func(testing.TB)) (msg string) {
	tb := &fatalTB{}
	defer func() {
		if r := recover(); r != nil && r != any(tb) {
			panic(r)
		}
		msg = tb.msg
	}()
	fn(tb)
	return ""
}

// TestGateKey: a finding's key names its class, UNEXPLAINED for none.
func TestGateKey(t *testing.T) {
	if got := []string{GateKey("", "VK3"), GateKey("GA", "S11")}; !slices.Equal(got, []string{"UNEXPLAINED VK3", "GA S11"}) {
		t.Errorf("GateKey: %q", got)
	}
}
