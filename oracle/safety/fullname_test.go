package safety

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/podsim/podsim/model/ops"
)

// TestFullNameOfIsNoteFullName: fullNameOf, which answers an update of a
// UID whose pod keeps the name and namespace of its last update from the
// UID's record, returns what noteFullName returns and leaves the same
// sorted full names, over random updates whose UIDs change name and
// namespace now and then, across a Reset. It fails when the shortcut
// ignores a new name or namespace (the old full name is returned, the new
// one never noted).
func TestFullNameOfIsNoteFullName(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	cached, plain := newSafetyOracle(), newSafetyOracle()
	names, spaces := []string{"a", "b", "c_d"}, []string{"default", "kube", "x_y"}
	changed := 0
	for i := range 3000 {
		if i == 1500 {
			cached.Reset()
			plain.Reset()
		}
		uid := string(rune('a' + r.IntN(3)))
		p := ops.Pod{UID: uid, Name: names[r.IntN(len(names))], Namespace: spaces[r.IntN(len(spaces))]}
		if t := cached.pod(uid); t != nil && t.fullname != "" && (t.podName != p.Name || t.podNamespace != p.Namespace) {
			changed++
		}
		got, want := cached.fullNameOf(cached.track(uid), &p), plain.noteFullName(&p)
		if got != want {
			t.Fatalf("update %d (%+v): fullNameOf %q, noteFullName %q", i, p, got, want)
		}
		if !slices.Equal(cached.sortedFullnames, plain.sortedFullnames) {
			t.Fatalf("update %d: full names %v, want %v", i, cached.sortedFullnames, plain.sortedFullnames)
		}
	}
	if changed == 0 {
		t.Fatal("no UID's pod changed its name: the shortcut was never tested")
	}
}
