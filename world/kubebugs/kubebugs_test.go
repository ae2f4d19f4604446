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
