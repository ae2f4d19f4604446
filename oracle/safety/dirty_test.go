package safety

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestTakeDirtyIsTheMarked: takeDirty returns the UIDs marked since the
// last release, each once and sorted by UID (every UID after allDirty),
// clears their marks, and the list it returned stays as it was while the
// pass marks UIDs for the next release (a request marks its UID) —
// over random marks across a Reset. It fails when a list of several is
// not sorted, or when the marks of the pass are written into the list
// being judged.
func TestTakeDirtyIsTheMarked(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	o := newSafetyOracle()
	uids := []string{"e", "b", "d", "a", "c"}
	want := map[string]bool{}
	for release := range 2000 {
		if release == 1000 {
			o.Reset()
			clear(want)
		}
		for range r.IntN(4) {
			uid := uids[r.IntN(len(uids))]
			o.markDirty(o.track(uid)) // track marks a new UID itself
			want[uid] = true
		}
		all := r.IntN(10) == 0
		o.allDirty = o.allDirty || all
		if o.allDirty {
			for _, uid := range o.uids {
				want[uid] = true
			}
		}
		judged := o.takeDirty()
		var got []string
		for _, p := range judged {
			got = append(got, p.uid)
			if p.dirty {
				t.Fatalf("release %d: %s judged still marked", release, p.uid)
			}
		}
		w := make([]string, 0, len(want))
		for uid := range want {
			w = append(w, uid)
		}
		slices.Sort(w)
		if !slices.Equal(got, w) {
			t.Fatalf("release %d: judged %v, want %v", release, got, w)
		}
		clear(want)
		// The pass marks some UIDs for the next release while judged is read.
		for range r.IntN(3) {
			uid := uids[r.IntN(len(uids))]
			o.markDirty(o.track(uid))
			want[uid] = true
		}
		for i, p := range judged {
			if p.uid != got[i] {
				t.Fatalf("release %d: the pass's marks changed the list judged: %s at %d, was %s", release, p.uid, i, got[i])
			}
		}
	}
}
