package scenarios

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/sim"
)

// The text forms of a Case in a regression script: one line per action,
// choice lists with runs of zeros compressed, strategies by name. Every
// form parses back to exactly what was formatted (TestScriptFormsRoundTrip,
// FuzzParseScriptAction).

// FormatScriptAction writes a as one script line:
//
//	<at> client/<n> <kind> [uid=U] [static] [name=N] [spec-grace=S] [grace=G] [evict] [phase=P]
//
// A field is written only when it differs from its zero value (grace: -1,
// none), so the line reads like Action.String but loses nothing.
func FormatScriptAction(a Action) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v client/%d %s", a.At, a.Client, a.Kind)
	if a.UID != "" {
		fmt.Fprintf(&b, " uid=%s", a.UID)
	}
	if a.Static {
		b.WriteString(" static")
	}
	if a.Name != "" {
		fmt.Fprintf(&b, " name=%s", a.Name)
	}
	if a.SpecGrace != 0 {
		fmt.Fprintf(&b, " spec-grace=%d", a.SpecGrace)
	}
	if a.Grace != -1 {
		fmt.Fprintf(&b, " grace=%d", a.Grace)
	}
	if a.Evict {
		b.WriteString(" evict")
	}
	if a.Terminal != "" {
		fmt.Fprintf(&b, " phase=%s", a.Terminal)
	}
	return b.String()
}

// ParseScriptAction reads a line written by FormatScriptAction.
func ParseScriptAction(line string) (Action, error) {
	f := strings.Fields(line)
	a := Action{Grace: -1}
	if len(f) < 3 {
		return a, fmt.Errorf("action %q: want <at> client/<n> <kind> [field=value ...]", line)
	}
	at, err := time.ParseDuration(f[0])
	if err != nil || at < 0 {
		return a, fmt.Errorf("action %q: bad time %q", line, f[0])
	}
	a.At = at
	cs, ok := strings.CutPrefix(f[1], "client/")
	if a.Client, err = strconv.Atoi(cs); !ok || err != nil || a.Client < 0 || a.Client > 1<<16 {
		return a, fmt.Errorf("action %q: bad client %q", line, f[1])
	}
	if a.Kind, ok = actionKindNamed(f[2]); !ok {
		return a, fmt.Errorf("action %q: unknown kind %q", line, f[2])
	}
	for _, field := range f[3:] {
		if err := a.setScriptField(field); err != nil {
			return a, fmt.Errorf("action %q: %v", line, err)
		}
	}
	return a, nil
}

func actionKindNamed(name string) (ActionKind, bool) {
	for k, n := range actionNames {
		if n == name {
			return ActionKind(k), true
		}
	}
	return 0, false
}

func (a *Action) setScriptField(field string) error {
	key, val, hasVal := strings.Cut(field, "=")
	var err error
	switch {
	case key == "static" && !hasVal:
		a.Static = true
	case key == "evict" && !hasVal:
		a.Evict = true
	case key == "uid" && val != "":
		a.UID = types.UID(val)
	case key == "name" && val != "":
		a.Name = val
	case key == "phase" && (val == "Succeeded" || val == "Failed"):
		a.Terminal = val
	case key == "spec-grace":
		a.SpecGrace, err = strconv.ParseInt(val, 10, 64)
	case key == "grace":
		a.Grace, err = strconv.ParseInt(val, 10, 64)
	default:
		return fmt.Errorf("unknown field %q", field)
	}
	if err != nil || a.SpecGrace < 0 || a.Grace < -1 {
		return fmt.Errorf("bad number in %q", field)
	}
	return nil
}

// FormatChoices writes a choice list as space-separated numbers, 16 to a
// line; a run of four or more zeros is written 0*N.
func FormatChoices(xs []int) string {
	var words []string
	for i := 0; i < len(xs); {
		j := i
		for j < len(xs) && xs[j] == 0 {
			j++
		}
		switch {
		case j-i >= 4:
			words = append(words, fmt.Sprintf("0*%d", j-i))
			i = j
		default:
			words = append(words, strconv.Itoa(xs[i]))
			i++
		}
	}
	var lines []string
	for len(words) > 16 {
		lines = append(lines, strings.Join(words[:16], " "))
		words = words[16:]
	}
	return strings.Join(append(lines, strings.Join(words, " ")), "\n")
}

// maxChoiceRun bounds 0*N, so a corrupt script cannot ask for gigabytes.
const maxChoiceRun = 1 << 22

// ParseChoices reads what FormatChoices wrote.
func ParseChoices(text string) ([]int, error) {
	var out []int
	for _, w := range strings.Fields(text) {
		if n, ok := strings.CutPrefix(w, "0*"); ok {
			k, err := strconv.Atoi(n)
			if err != nil || k < 1 || len(out)+k > maxChoiceRun {
				return nil, fmt.Errorf("bad run of zeros %q", w)
			}
			out = append(out, make([]int, k)...)
			continue
		}
		v, err := strconv.Atoi(w)
		if err != nil || v < 0 || len(out) >= maxChoiceRun {
			return nil, fmt.Errorf("bad choice %q: want a non-negative integer or 0*N", w)
		}
		out = append(out, v)
	}
	return out, nil
}

// StrategyArgs writes a strategy as the arguments of a script's plan
// directive: "strategy=random" or "strategy=pct depth=3 steps=2000".
func StrategyArgs(st sim.Strategy) string {
	if p, ok := st.(sim.PCT); ok {
		return fmt.Sprintf("strategy=pct depth=%d steps=%d", p.Depth, p.Steps)
	}
	return "strategy=" + st.String()
}

// StrategyFromArgs reads StrategyArgs' values back.
func StrategyFromArgs(name string, depth, steps int) (sim.Strategy, error) {
	switch name {
	case "random":
		return sim.RandomWalk{}, nil
	case "pct":
		if depth < 1 || steps < 1 {
			return nil, fmt.Errorf("pct needs depth >= 1 and steps >= 1, got %d and %d", depth, steps)
		}
		return sim.PCT{Depth: depth, Steps: steps}, nil
	}
	return nil, fmt.Errorf("unknown strategy %q", name)
}

// FaultArgs writes a plan's faults as the arguments of a faults directive.
func FaultArgs(f Faults) string {
	return fmt.Sprintf("error=%d slow=%d max-delay=%v ignore-cancel=%d terminal=%d",
		f.ErrorRate, f.SlowRate, f.MaxDelay, f.IgnoreCancel, f.TerminalRate)
}
