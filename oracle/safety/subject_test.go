package safety

import (
	"strings"
	"testing"

	"github.com/podsim/podsim/model/ops"
)

// TestCompletionSubjects: S14's messages name the pod as they did when
// the name was built at every completion (answersOf), now that it is built
// only for a report (subjectOf): a record begun in the very section that
// fires its completion early is named by its record, not as unknown; one
// fired outside a section by its record's last answers. It fails when subjectOf names a record only once it
// has answers (the first case).
func TestCompletionSubjects(t *testing.T) {
	for _, c := range []struct {
		name  string
		story func(s *safetyScript)
		want  string
	}{
		{"early, in the section that began the record", func(s *safetyScript) {
			s.update(ops.UpdatePod{Type: ops.Create, Pod: sfA1, Kill: sfWithCh(5)}, func() { s.state("a", "TR"); s.fire("a", 5) })
		}, "pod a (TR): the completion of"},
		{"early, outside a section", func(s *safetyScript) {
			s.create(sfA1)
			s.update(sfKill(sfA1, sfWithCh(5)), func() { s.state("a", "TR") })
			s.fire("a", 5)
		}, "pod a (TR): the completion of"},
	} {
		s := newSafetyScript()
		c.story(s)
		var got []string
		for _, v := range s.finish() {
			if v.Invariant == "S14" {
				got = append(got, v.Message)
			}
		}
		if len(got) != 1 || !strings.HasPrefix(got[0], c.want) {
			t.Errorf("%s: S14 messages %q, want one beginning %q", c.name, got, c.want)
		}
	}
}

// TestPhaseOfIsTheTable: safetyPhaseOf, a switch, gives each callback the
// phase the table it replaced gave, and phNone (the table's zero) to any
// other value. It fails when a case is left out or swapped.
func TestPhaseOfIsTheTable(t *testing.T) {
	table := map[ops.SyncFn]safetyPhase{ops.SyncPod: phSync, ops.SyncTerminatingPod: phTerm,
		ops.SyncTerminatingRuntimePod: phRuntime, ops.SyncTerminatedPod: phTerminated}
	for fn := ops.NoSync; fn <= ops.SyncTerminatedPod+2; fn++ {
		if got, want := safetyPhaseOf(fn), table[fn]; got != want {
			t.Errorf("safetyPhaseOf(%v) = %v, the table's %v", fn, got, want)
		}
	}
}
