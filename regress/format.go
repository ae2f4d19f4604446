package regress

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
)

// The text forms of a Case in a regression script: one line per action,
// the fault knobs as key=value arguments, choice lists with runs of zeros
// compressed, strategies by name. Every form parses back to exactly what
// was formatted (TestScriptFormsRoundTrip, FuzzParseScriptAction).
//
// Action and Faults fields are written by reflection, under the kebab-case
// of their Go name, so a field added to either is carried by scripts
// without touching this file; a Plan field other than Family, Clients,
// Actions and Faults travels as JSON (the plan-json directive).

// actionFieldNames are the script names of Action fields whose kebab-case
// would read worse; At, Client and Kind lead the line and have none.
var actionFieldNames = map[string]string{"UID": "uid", "Terminal": "phase"}

// scriptFields lists the fields of a struct type as script keys, in
// declaration order, skipping those named in skip.
func scriptFields(t reflect.Type, renames map[string]string, skip ...string) []scriptField {
	var out []scriptField
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() || slices.Contains(skip, f.Name) {
			continue
		}
		key := renames[f.Name]
		if key == "" {
			key = kebab(f.Name)
		}
		out = append(out, scriptField{index: i, key: key})
	}
	return out
}

type scriptField struct {
	index int
	key   string
}

// kebab turns a Go name into a script key: SpecGrace → spec-grace,
// CPU → cpu, MaxDelay → max-delay.
func kebab(name string) string {
	var b strings.Builder
	rs := []rune(name)
	for i, r := range rs {
		if unicode.IsUpper(r) && i > 0 && (unicode.IsLower(rs[i-1]) || i+1 < len(rs) && unicode.IsLower(rs[i+1])) {
			b.WriteByte('-')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// formatValue writes v as a script value; ok is false for a value that
// equals its default (def) and is left out.
func formatValue(v, def reflect.Value) (string, bool) {
	if v.Equal(def) {
		return "", false
	}
	if d, isDur := v.Interface().(time.Duration); isDur {
		return d.String(), true
	}
	switch v.Kind() {
	case reflect.Bool:
		return "", true // a flag: its presence is the value
	case reflect.String:
		return v.String(), true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.FormatUint(v.Uint(), 10), true
	}
	panic(fmt.Sprintf("regress: script format: field of kind %v has no text form", v.Kind()))
}

// setValue parses text into v (a settable field).
func setValue(v reflect.Value, text string, isFlag bool) error {
	if _, isDur := v.Interface().(time.Duration); isDur {
		d, err := time.ParseDuration(text)
		if err != nil || d < 0 || d.String() != text {
			return fmt.Errorf("bad duration %q", text)
		}
		v.SetInt(int64(d))
		return nil
	}
	if (v.Kind() == reflect.Bool) != isFlag {
		return fmt.Errorf("want a flag for booleans and key=value otherwise")
	}
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(true)
	case reflect.String:
		if text == "" {
			return fmt.Errorf("empty value")
		}
		v.SetString(text)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := strconv.ParseInt(text, 10, v.Type().Bits())
		if err != nil || strconv.FormatInt(n, 10) != text {
			return fmt.Errorf("bad number %q", text)
		}
		v.SetInt(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, err := strconv.ParseUint(text, 10, v.Type().Bits())
		if err != nil || strconv.FormatUint(n, 10) != text {
			return fmt.Errorf("bad number %q", text)
		}
		v.SetUint(n)
	default:
		return fmt.Errorf("field of kind %v has no text form", v.Kind())
	}
	return nil
}

// formatFields writes the fields of s that differ from def as
// " key=value" (" key" for a true boolean).
func formatFields(b *strings.Builder, s, def reflect.Value, fields []scriptField) {
	for _, f := range fields {
		text, ok := formatValue(s.Field(f.index), def.Field(f.index))
		if !ok {
			continue
		}
		b.WriteString(" " + f.key)
		if s.Field(f.index).Kind() != reflect.Bool {
			b.WriteString("=" + text)
		}
	}
}

// parseFields sets the fields of s (a pointer) named by key=value words.
func parseFields(s reflect.Value, words []string, fields []scriptField) error {
	seen := map[string]bool{}
	for _, w := range words {
		key, val, hasVal := strings.Cut(w, "=")
		i := -1
		for _, f := range fields {
			if f.key == key {
				i = f.index
			}
		}
		if i < 0 || seen[key] {
			return fmt.Errorf("unknown or repeated field %q", w)
		}
		seen[key] = true
		if err := setValue(s.Elem().Field(i), val, !hasVal); err != nil {
			return fmt.Errorf("%s: %v", key, err)
		}
	}
	return nil
}

var (
	actionFields = scriptFields(reflect.TypeFor[plan.Action](), actionFieldNames, "At", "Client", "Kind")
	faultFields  = scriptFields(reflect.TypeFor[plan.Faults](), nil)
	// defaultAction is what a field left out of an action line means.
	defaultAction = plan.Action{Grace: -1}
)

// FormatScriptAction writes a as one script line:
//
//	<at> client/<n> <kind> [uid=U] [static] [name=N] [spec-grace=S] [grace=G] [evict] [phase=P] ...
//
// A field is written only when it differs from its default (zero; for
// grace, -1: none), so the line reads like Action.String but loses nothing.
func FormatScriptAction(a plan.Action) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v client/%d %s", a.At, a.Client, a.Kind)
	formatFields(&b, reflect.ValueOf(a), reflect.ValueOf(defaultAction), actionFields)
	return b.String()
}

// ParseScriptAction reads a line written by FormatScriptAction.
func ParseScriptAction(line string) (plan.Action, error) {
	f := strings.Fields(line)
	a := defaultAction
	if len(f) < 3 {
		return a, fmt.Errorf("action %q: want <at> client/<n> <kind> [field=value ...]", line)
	}
	at, err := time.ParseDuration(f[0])
	if err != nil || at < 0 || at.String() != f[0] {
		return a, fmt.Errorf("action %q: bad time %q", line, f[0])
	}
	a.At = at
	cs, ok := strings.CutPrefix(f[1], "client/")
	if a.Client, err = strconv.Atoi(cs); !ok || err != nil || a.Client < 0 || a.Client > 1<<16 || strconv.Itoa(a.Client) != cs {
		return a, fmt.Errorf("action %q: bad client %q", line, f[1])
	}
	if a.Kind, ok = plan.ActionKindNamed(f[2]); !ok {
		return a, fmt.Errorf("action %q: unknown kind %q", line, f[2])
	}
	if err := parseFields(reflect.ValueOf(&a), f[3:], actionFields); err != nil {
		return a, fmt.Errorf("action %q: %v", line, err)
	}
	running := a.Kind == plan.VKStatus && a.Terminal == "Running" // a VK provider status may be Running
	if a.Grace < -1 || a.Terminal != "" && a.Terminal != "Succeeded" && a.Terminal != "Failed" && !running {
		return a, fmt.Errorf("action %q: grace below -1 or phase not Succeeded or Failed (or Running for vk-status)", line)
	}
	if a.Target != "" && a.Target != plan.TargetRunningPod && a.Target != plan.TargetBoth {
		return a, fmt.Errorf("action %q: target not %s or %s", line, plan.TargetRunningPod, plan.TargetBoth)
	}
	return a, nil
}

// FaultArgs writes a plan's faults as the arguments of a faults directive,
// every knob, zero or not; a boolean is a flag, written only when on (so
// that scripts written before it keep their bytes).
func FaultArgs(f plan.Faults) string {
	v := reflect.ValueOf(f)
	var words []string
	for _, fl := range faultFields {
		text, ok := formatValue(v.Field(fl.index), reflect.Zero(v.Field(fl.index).Type()))
		if v.Field(fl.index).Kind() == reflect.Bool {
			if ok {
				words = append(words, fl.key)
			}
			continue
		}
		if !ok {
			text = "0"
			if _, isDur := v.Field(fl.index).Interface().(time.Duration); isDur {
				text = "0s"
			}
		}
		words = append(words, fl.key+"="+text)
	}
	return strings.Join(words, " ")
}

// ParseFaultArgs reads FaultArgs' words back; a knob left out is 0.
func ParseFaultArgs(words []string) (plan.Faults, error) {
	var f plan.Faults
	err := parseFields(reflect.ValueOf(&f), words, faultFields)
	return f, err
}

// planCoreFields are the Plan fields the plan, faults and action lines
// carry; any other travels as JSON.
var planCoreFields = []string{"Family", "Clients", "Actions", "Faults"}

// PlanExtraJSON is the JSON of p's fields other than the core ones that
// are set ("" when none is): the plan-json directive's input.
func PlanExtraJSON(p plan.Plan) string {
	v := reflect.ValueOf(p)
	extra := map[string]any{}
	for i := 0; i < v.NumField(); i++ {
		name := v.Type().Field(i).Name
		if !slices.Contains(planCoreFields, name) && !v.Field(i).IsZero() {
			extra[name] = v.Field(i).Interface()
		}
	}
	if len(extra) == 0 {
		return ""
	}
	data, err := json.Marshal(extra)
	if err != nil {
		panic(fmt.Sprintf("regress: plan-json: %v", err))
	}
	return string(data)
}

// SetPlanExtraJSON sets the non-core fields of p from PlanExtraJSON's text.
func SetPlanExtraJSON(p *plan.Plan, text string) error {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal([]byte(text), &fields); err != nil {
		return fmt.Errorf("plan-json: %v", err)
	}
	for name := range fields {
		if f, ok := reflect.TypeFor[plan.Plan]().FieldByName(name); !ok || slices.Contains(planCoreFields, name) || !f.IsExported() {
			return fmt.Errorf("plan-json: no extra plan field %q", name)
		}
	}
	dec := json.NewDecoder(strings.NewReader(text))
	dec.DisallowUnknownFields()
	return dec.Decode(p)
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
