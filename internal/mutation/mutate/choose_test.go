package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/podsim/podsim/internal/mutation"
)

func entries() []entry {
	var es []entry
	for i := 0; i < 30; i++ {
		p := "workers"
		if i >= 10 {
			p = "world"
		}
		es = append(es, entry{ID: i, Package: p, Mutant: mutation.Mutant{File: p + "/f.go", Line: i + 1, Index: i}})
	}
	return es
}

func ids(es []entry) []int {
	var out []int
	for _, e := range es {
		out = append(out, e.ID)
	}
	return out
}

// TestSampleIsSeededAndPerPackage: the same seed draws the same mutants,
// in ID order, at most -sample of each package; another seed draws others.
func TestSampleIsSeededAndPerPackage(t *testing.T) {
	a, _ := choose(entries(), options{sample: 4, seed: 1})
	b, _ := choose(entries(), options{sample: 4, seed: 1})
	c, _ := choose(entries(), options{sample: 4, seed: 2})
	if !slices.Equal(ids(a), ids(b)) || !slices.IsSorted(ids(a)) || len(a) != 8 {
		t.Fatalf("sample %v then %v", ids(a), ids(b))
	}
	if slices.Equal(ids(a), ids(c)) {
		t.Errorf("seeds 1 and 2 drew the same sample %v", ids(a))
	}
	all, _ := choose(entries(), options{})
	if len(all) != 30 {
		t.Errorf("no sample: %d mutants", len(all))
	}
}

// TestIdsFile: --ids keeps the numbered mutants; a bad line is an error.
func TestIdsFile(t *testing.T) {
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "good"), filepath.Join(dir, "bad")
	os.WriteFile(good, []byte("3\n12\n"), 0o644)
	os.WriteFile(bad, []byte("3\nx\n"), 0o644)
	got, err := choose(entries(), options{ids: good})
	if err != nil || !slices.Equal(ids(got), []int{3, 12}) {
		t.Errorf("ids: %v, %v", ids(got), err)
	}
	if _, err := choose(entries(), options{ids: bad}); err == nil {
		t.Error("a bad ids file was accepted")
	}
}

// TestDropAtNamesTheMutantsOfTheLine: a compiler error in a schema file
// drops the live mutants whose range covers its line, and only those.
func TestDropAtNamesTheMutantsOfTheLine(t *testing.T) {
	es := entries()
	dropped := map[int]string{}
	n := dropAt("/tmp/x/world_f.go:12:3: mismatched types\n", es, dropped)
	if n != 1 || dropped[11] == "" {
		t.Errorf("dropped %v (%d)", dropped, n)
	}
	if dropAt("no error here\n", es, dropped) != 0 {
		t.Error("dropped a mutant without an error")
	}
}

// TestVKMutantsComeLast: with -vk the mutants of vkworld/ follow every
// other one, whose numbers and text do not move.
func TestVKMutantsComeLast(t *testing.T) {
	plain, err := findAll("../../..", false)
	if err != nil {
		t.Fatal(err)
	}
	withVK, err := findAll("../../..", true)
	if err != nil {
		t.Fatal(err)
	}
	if len(withVK) <= len(plain) {
		t.Fatalf("-vk found %d mutants, without it %d", len(withVK), len(plain))
	}
	for i, e := range withVK {
		if i < len(plain) && (e.ID != plain[i].ID || e.Mutant != plain[i].Mutant) {
			t.Fatalf("mutant %d moved with -vk: %v, was %v", i, e, plain[i])
		}
		if i >= len(plain) && (e.Package != vkPackage || e.ID != i) {
			t.Fatalf("mutant %d past the others is %v, want one of %s numbered %d", i, e, vkPackage, i)
		}
	}
}
