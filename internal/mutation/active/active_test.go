package active

import (
	"slices"
	"strings"
	"testing"
)

// TestParse: a number or a key of the build switches that mutant on;
// nothing switches none on; anything else switches none on and says why.
func TestParse(t *testing.T) {
	saved := keys
	defer func() { keys = saved }()
	keys = map[string]int{"k0123456789": 42}
	for in, want := range map[string]int{"": -1, "7": 7, "0": 0, "k0123456789": 42} {
		if got, problem := parse(in); got != want || problem != "" {
			t.Errorf("parse(%q) = %d, %q; want %d", in, got, problem, want)
		}
	}
	for in, want := range map[string]string{"-3": "neither", "x": "neither", "k9999999999": "no mutant of this build"} {
		if got, problem := parse(in); got != -1 || !strings.Contains(problem, want) {
			t.Errorf("parse(%q) = %d, %q; want none and %q", in, got, problem, want)
		}
	}
}

// TestGuardsTakeTheOriginalUnlessOn: with no mutant on, Sub/Quo/Rem are
// the original operations; with theirs on, the operands are swapped.
func TestGuardsTakeTheOriginalUnlessOn(t *testing.T) {
	saved := on
	defer func() { on = saved }()
	on = -1
	if Sub(1, 7, 2) != 5 || Quo(1, 8, 2) != 4 || Rem(1, 7, 3) != 1 || On(1) {
		t.Error("guards changed the original with no mutant on")
	}
	on = 1
	if Sub(1, 7, 2) != -5 || Quo(1, 8.0, 2.0) != 0.25 || Rem(1, 3, 7) != 1 || !On(1) || On(2) {
		t.Error("mutant 1 on: operands not swapped")
	}
}

// TestReachNotesTheSitesAskedSinceRecord: once recording, every On notes
// its mutant; Record starts from none again; the answers do not change.
func TestReachNotesTheSitesAskedSinceRecord(t *testing.T) {
	savedOn, savedRec, savedReached := on, recording, reached
	defer func() { on, recording, reached = savedOn, savedRec, savedReached }()
	on, recording, reached = 5, false, nil
	On(3)
	Record()
	if got := Reached(); len(got) != 0 {
		t.Fatalf("reached before any site ran: %v", got)
	}
	if On(200) || !On(5) || On(3) || On(3) {
		t.Fatal("recording changed what On answers")
	}
	if got := Reached(); !slices.Equal(got, []int{3, 5, 200}) {
		t.Errorf("reached = %v, want [3 5 200]", got)
	}
	Record()
	On(7)
	if got := Reached(); !slices.Equal(got, []int{7}) {
		t.Errorf("after Record, reached = %v, want [7]", got)
	}
	if Which() != 5 {
		t.Errorf("Which() = %d, want 5", Which())
	}
}
