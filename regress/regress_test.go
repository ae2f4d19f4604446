package regress

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/run"
	"github.com/podsim/podsim/shrink"
	"github.com/podsim/podsim/sim"
)

// TestRegressionScripts re-runs every shrunk failure saved under
// testdata/ (simrun shrink writes them). Rewrite the expected
// output after an intended change with
//
//	go test ./regress -run TestRegressionScripts -rewrite
//
// Directives:
//
//	plan family=F clients=N strategy=random|pct [depth=D steps=K]   input: one action per line
//	plan-json                 input: the plan's other fields as JSON (e.g. {"Node":{...}})
//	faults error-rate=R slow-rate=R max-delay=D ignore-cancel=R terminal-rate=R ...  (every Faults field)
//	schedule                  input: the scheduler's choices (0*N: N zeros)
//	fault-choices             input: the fake runtime's choices
//	fault-points              the runs arm the fault points (no argument, no input)
//	run [mutant=NAME] [marks] the verdict: ok, or FAIL and each failure (then the
//	                          fault points on, when armed)
func TestRegressionScripts(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		s := &scriptRunner{}
		datadriven.RunTest(t, path, s.directive)
	})
}

// scriptRunner builds a Case from a script's set-up directives.
type scriptRunner struct {
	c           run.Case
	st          sim.Strategy
	faultPoints bool // the fault-points directive was given
}

func (s *scriptRunner) directive(t *testing.T, td *datadriven.TestData) string {
	args := map[string]string{}
	for _, a := range td.CmdArgs {
		args[a.Key] = strings.Join(a.Vals, ",")
	}
	num := func(key string) int {
		v, err := strconv.Atoi(args[key])
		if err != nil && args[key] != "" {
			td.Fatalf(t, "%s=%q: want a number", key, args[key])
		}
		return v
	}
	var err error
	switch td.Cmd {
	case "plan":
		s.c.Plan = plan.Plan{Family: args["family"], Clients: num("clients")}
		if s.st, err = StrategyFromArgs(args["strategy"], num("depth"), num("steps")); err != nil {
			td.Fatalf(t, "%v", err)
		}
		for _, line := range strings.Split(strings.TrimSpace(td.Input), "\n") {
			if line == "" {
				continue
			}
			a, err := ParseScriptAction(line)
			if err != nil {
				td.Fatalf(t, "%v", err)
			}
			s.c.Plan.Actions = append(s.c.Plan.Actions, a)
		}
	case "plan-json":
		if err := SetPlanExtraJSON(&s.c.Plan, td.Input); err != nil {
			td.Fatalf(t, "%v", err)
		}
	case "faults":
		var words []string
		for _, a := range td.CmdArgs {
			words = append(words, a.String())
		}
		if s.c.Plan.Faults, err = ParseFaultArgs(words); err != nil {
			td.Fatalf(t, "%v", err)
		}
	case "schedule":
		s.c.Schedule = s.choices(t, td)
	case "fault-choices":
		s.c.Faults = s.choices(t, td)
	case FaultPointsDirective:
		if err := checkFaultPointsDirective(td); err != nil {
			td.Fatalf(t, "%v", err)
		}
		s.faultPoints = true
	case "run":
		if s.st == nil {
			td.Fatalf(t, "run before plan")
		}
		_, marks := args["marks"]
		return ScriptVerdict(run.RunCase(s.c, s.st, run.CheckOptions{Mutant: args["mutant"], FaultPoints: s.faultPoints}), marks)
	default:
		td.Fatalf(t, "unknown directive %q", td.Cmd)
	}
	return ""
}

// checkFaultPointsDirective refuses a fault-points directive with an
// argument or an input.
func checkFaultPointsDirective(td *datadriven.TestData) error {
	if len(td.CmdArgs) > 0 || strings.TrimSpace(td.Input) != "" {
		return fmt.Errorf("%s takes no argument and no input", FaultPointsDirective)
	}
	return nil
}

func (s *scriptRunner) choices(t *testing.T, td *datadriven.TestData) []int {
	xs, err := ParseChoices(td.Input)
	if err != nil {
		td.Fatalf(t, "%v", err)
	}
	return xs
}

// TestScriptFormsRoundTrip: every action of every family's plans, every
// choice list and every strategy formats and parses back to itself.
func TestScriptFormsRoundTrip(t *testing.T) {
	if testing.Short() {
		t.Skip("-short (make race): one goroutine formats and parses (the runs it records are runs the race " +
			"detector meets in other tests); make test runs it")
	}
	for _, f := range plan.Families() {
		for seed := uint64(0); seed < 50; seed++ {
			c, _ := run.RecordSeed(f, seed, sim.RandomWalk{}, run.CheckOptions{})
			for _, a := range c.Plan.Actions {
				got, err := ParseScriptAction(FormatScriptAction(a))
				if err != nil || got != a {
					t.Fatalf("%s seed %d: %+v formats as %q, parses as %+v (%v)", f.Name, seed, a, FormatScriptAction(a), got, err)
				}
			}
			words := strings.Fields(FaultArgs(c.Plan.Faults))
			if got, err := ParseFaultArgs(words); err != nil || got != c.Plan.Faults {
				t.Fatalf("%s seed %d: faults %+v format as %q, parse as %+v (%v)", f.Name, seed, c.Plan.Faults, words, got, err)
			}
			if extra := PlanExtraJSON(c.Plan); extra != "" {
				var p plan.Plan
				if err := SetPlanExtraJSON(&p, extra); err != nil || PlanExtraJSON(p) != extra {
					t.Fatalf("%s seed %d: plan-json %s does not round-trip (%v)", f.Name, seed, extra, err)
				}
			}
			for _, xs := range [][]int{c.Schedule, c.Faults} {
				if got, err := ParseChoices(FormatChoices(xs)); err != nil || !slices.Equal(got, xs) {
					t.Fatalf("%s seed %d: choices do not round-trip (%v)", f.Name, seed, err)
				}
			}
		}
	}
	for _, st := range []sim.Strategy{sim.RandomWalk{}, sim.PCT{Depth: 3, Steps: 2000}} {
		var name string
		var depth, steps int
		for _, kv := range strings.Fields(StrategyArgs(st)) {
			k, v, _ := strings.Cut(kv, "=")
			switch k {
			case "strategy":
				name = v
			case "depth":
				depth, _ = strconv.Atoi(v)
			case "steps":
				steps, _ = strconv.Atoi(v)
			}
		}
		if got, err := StrategyFromArgs(name, depth, steps); err != nil || got != st {
			t.Fatalf("%v round-trips to %v (%v)", st, got, err)
		}
	}
}

func TestScriptParsersRejectBadInput(t *testing.T) {
	for _, line := range []string{"", "0s client/0", "x client/0 create", "-1s client/0 create", "0s client/x create",
		"0s client/0 explode", "0s client/0 create uid=", "0s client/0 create grace=-2", "0s client/0 create wat",
		"0s client/0 create spec-grace=1e9", "0s client/0 finish phase=Running", "0s client/00 create",
		"0s client/0 create static=1", "0s client/0 create evict=true", "0s client/0 create grace=1 grace=2",
		"0.5s client/0 create", "0s client/0 create Grace=1"} {
		if a, err := ParseScriptAction(line); err == nil {
			t.Errorf("%q accepted as %+v", line, a)
		}
	}
	for _, text := range []string{"1 x", "0*0", "0*-3", "-1", "0*99999999"} {
		if xs, err := ParseChoices(text); err == nil {
			t.Errorf("%q accepted as %d choices", text, len(xs))
		}
	}
	for _, words := range [][]string{{"error-rate=x"}, {"bogus=1"}, {"max-delay=1"}, {"slow-rate"}, {"error-rate=1", "error-rate=2"}} {
		if f, err := ParseFaultArgs(words); err == nil {
			t.Errorf("%q accepted as %+v", words, f)
		}
	}
	for _, text := range []string{`{"Family":"x"}`, `{"Actions":[]}`, `{"Nope":1}`, `{`, `[]`} {
		var p plan.Plan
		if err := SetPlanExtraJSON(&p, text); err == nil {
			t.Errorf("plan-json %s accepted", text)
		}
	}
}

// FuzzParseScriptAction: no input panics, and what parses formats back to
// a line that parses to the same action.
//
//	go test -run '^$' -fuzz FuzzParseScriptAction ./regress
func FuzzParseScriptAction(f *testing.F) {
	for _, s := range []string{"0s client/0 create uid=a", "1.5s client/2 kill uid=b static name=web spec-grace=30 grace=0 evict",
		"2s client/0 finish uid=a phase=Failed", "0s client/0 sync-known", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		a, err := ParseScriptAction(line)
		if err != nil {
			return
		}
		again, err := ParseScriptAction(FormatScriptAction(a))
		if err != nil || again != a {
			t.Fatalf("%q → %+v → %q → %+v (%v)", line, a, FormatScriptAction(a), again, err)
		}
	})
}

// mutantRegressions are seeds known to fail with a catalogued mutant and
// pass without it. Each is recorded, shrunk and rendered as a script, and
// the script must say: the correct code passes, the mutant fails with the
// same failure as the seed. One line per mutant, e.g.
//
//	{"early-kill", 12, "B2"},
var mutantRegressions = []struct {
	family string
	seed   uint64
	mutant string
}{
	{"update-storm", 0, "B2"},       // a workers mutant
	{"rejected-admission", 1, "B5"}, // a kubelet mutant, judged by the kubelet-level oracle
}

func TestShrinkMutantSeeds(t *testing.T) {
	for _, m := range mutantRegressions {
		opts := run.CheckOptions{Mutant: m.mutant}
		c, r := run.RecordSeed(familyNamed(t, m.family), m.seed, sim.RandomWalk{}, opts)
		if !r.Failed() {
			t.Fatalf("%s seed %d passes with mutant %s", m.family, m.seed, m.mutant)
		}
		s, err := shrink.Shrink(c, sim.RandomWalk{}, opts, shrink.Options{})
		if err != nil {
			t.Fatal(err)
		}
		script := RenderScript(Script{Strategy: sim.RandomWalk{}, Case: s.Case, Mutant: m.mutant}, run.CheckOptions{})
		correct, mutated, _ := strings.Cut(script, "run mutant=")
		// The target is a FailureKeys key: "<oracle> <invariant>", and for the
		// workers' own invariants the broken one's name after it.
		key := strings.Fields(s.Target)
		shown := strings.Contains(mutated, key[0]+" "+key[1]+" at ")
		for _, name := range key[2:] {
			shown = shown && strings.Contains(mutated, "invariant "+name+" broken")
		}
		if !strings.Contains(correct, "run\n----\nok\n") || !strings.Contains(mutated, "FAIL\n") || !shown {
			t.Fatalf("%s seed %d mutant %s (%s): the script does not show ok, then the failure:\n%s", m.family, m.seed, m.mutant, s.Target, script)
		}
		// The rendered script parses and re-runs to the output it states.
		datadriven.RunTestFromString(t, script, (&scriptRunner{}).directive)
	}
}

func TestKebab(t *testing.T) {
	for in, want := range map[string]string{"SpecGrace": "spec-grace", "CPU": "cpu", "MaxDelay": "max-delay",
		"ErrorRate": "error-rate", "Mem": "mem", "UncancellablePull": "uncancellable-pull", "PodUID": "pod-uid"} {
		if got := kebab(in); got != want {
			t.Errorf("kebab(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestScriptReplaysTheRecordedRun: a seed written as a script and read
// back is the same run, trace for trace, in every family: nothing of the
// plan or the choices is lost on the way through the text.
func TestScriptReplaysTheRecordedRun(t *testing.T) {
	for _, f := range plan.Families() {
		for seed := uint64(0); seed < 3; seed++ {
			c, r := run.RecordSeed(f, seed, sim.RandomWalk{}, run.CheckOptions{})
			script := RenderScript(Script{Strategy: sim.RandomWalk{}, Case: c}, run.CheckOptions{})
			var s scriptRunner
			datadriven.RunTestFromString(t, script, s.directive)
			if again := run.RunCase(s.c, s.st, run.CheckOptions{}); again.TraceSHA != r.TraceSHA {
				t.Fatalf("%s seed %d: the script replays to another run\n%s", f.Name, seed, script)
			}
		}
	}
}

func familyNamed(t testing.TB, name string) plan.Family {
	t.Helper()
	f, ok := plan.FamilyNamed(name)
	if !ok {
		t.Fatalf("no family %q", name)
	}
	return f
}
