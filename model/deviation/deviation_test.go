package deviation

import "testing"

// TestDeviationNames: every switch's name parses back to it, sets join
// with "+", and names that are no switch are refused.
func TestDeviationNames(t *testing.T) {
	for dev := Set(1); dev <= All; dev <<= 1 {
		got, err := Parse(dev.String())
		if err != nil || got != dev {
			t.Errorf("%s: parsed back as %s, %v", dev, got, err)
		}
	}
	if got, err := Parse((G1 | GC).String()); err != nil || got != G1|GC {
		t.Errorf("G1+GC: %s, %v", got, err)
	}
	for _, bad := range []string{"GB", "G5", "G1+"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	if Set(0).String() != "none" {
		t.Errorf("no deviation renders as %q", Set(0))
	}
}
