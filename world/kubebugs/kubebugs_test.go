package kubebugs

import (
	"reflect"
	"strings"
	"testing"
)

// TestStringNamesEverySwitch: String names each switch that is on, in
// declaration order, and "none" for the correct world; a switch added to
// Bugs but not to String fails it.
func TestStringNamesEverySwitch(t *testing.T) {
	if got := (Bugs{}).String(); got != "none" {
		t.Errorf("no switch on: %q, want none", got)
	}
	typ := reflect.TypeOf(Bugs{})
	var all Bugs
	var names []string
	for i := range typ.NumField() {
		var one Bugs
		reflect.ValueOf(&one).Elem().Field(i).SetBool(true)
		reflect.ValueOf(&all).Elem().Field(i).SetBool(true)
		name := typ.Field(i).Name
		names = append(names, name)
		if got := one.String(); got != name {
			t.Errorf("only %s on: %q", name, got)
		}
	}
	if got, want := all.String(), strings.Join(names, ","); got != want {
		t.Errorf("every switch on: %q, want %q", got, want)
	}
}

// TestSwitchOnSetsOnlyItsOwn: each K entry's name switches on one field of
// Bugs, its own (the field named after it), and adds it to what is already
// on; every K entry has gate families; a name that is no K entry changes
// nothing and reports false.
func TestSwitchOnSetsOnlyItsOwn(t *testing.T) {
	seen := map[string]bool{}
	for _, m := range Kubelet() {
		if m.Kind != KindKubelet || len(m.Families) == 0 {
			t.Errorf("%s: kind %q, families %v", m.Name, m.Kind, m.Families)
		}
		var b Bugs
		if !SwitchOn(m.Name, &b) {
			t.Fatalf("%s: not switched on", m.Name)
		}
		on := b.String()
		if strings.Contains(on, ",") || !strings.HasPrefix(on, m.Name) || seen[on] {
			t.Errorf("%s switched on %q", m.Name, on)
		}
		seen[on] = true
		before := Bugs{B4ShutdownKeepsPhase: true}
		SwitchOn(m.Name, &before)
		if !before.B4ShutdownKeepsPhase {
			t.Errorf("%s switched B4 off", m.Name)
		}
	}
	for _, name := range []string{"", "B2", "G1", "B16", "b4"} {
		var b Bugs
		if SwitchOn(name, &b) || b != (Bugs{}) {
			t.Errorf("%q: switched on %v", name, b)
		}
	}
}
