package main

import (
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
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
		es = append(es, entry{ID: i, Package: p, Mutant: mutation.Mutant{File: p + "/f.go", Line: i + 1, Index: i,
			Key: fmt.Sprintf("k%010x", 1000+i)}})
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

// TestSampleIsPinned: a seed's sample is the same on every Go release (the
// draws are the tool's own, not math/rand's methods); these are the samples
// math/rand/v2's Shuffle drew up to go1.27, kept when podsim took the
// shuffle over.
func TestSampleIsPinned(t *testing.T) {
	for seed, want := range map[uint64][]int{1: {0, 2, 6, 8, 10, 13, 24, 28}, 2: {1, 7, 8, 9, 18, 19, 21, 29}, 7: {2, 4, 6, 9, 12, 17, 23, 25}} {
		if got, _ := choose(entries(), options{sample: 4, seed: seed}); !slices.Equal(ids(got), want) {
			t.Errorf("seed %d: sample %v, want %v", seed, ids(got), want)
		}
	}
}

// TestIdsFile: --ids keeps the mutants it names by number or by key; a
// bad line, an unknown key or a number past the list is bad input.
func TestIdsFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}
	for _, text := range []string{"3\n12\n", "k00000003eb 12", "k00000003f5\nk00000003f1 3"} { // 1003, 1013, 1009
		got, err := choose(entries(), options{ids: write("good", text)})
		want := []int{3, 12}
		if text == "k00000003f5\nk00000003f1 3" {
			want = []int{3, 9, 13}
		}
		if err != nil || !slices.Equal(ids(got), want) {
			t.Errorf("ids %q: %v, %v; want %v", text, ids(got), err, want)
		}
	}
	for _, text := range []string{"3\nx\n", "k0000000000", "30", "-1"} {
		_, err := choose(entries(), options{ids: write("bad", text)})
		if !errors.As(err, new(badInput)) {
			t.Errorf("ids %q: %v, want bad input", text, err)
		}
	}
	if _, err := choose(entries(), options{ids: filepath.Join(dir, "missing")}); !errors.As(err, new(badInput)) {
		t.Errorf("a missing ids file: %v, want bad input", err)
	}
}

// TestOnlyTakesAKey: --only names one mutant by its key as well as by a
// part of its file:line#index id.
func TestOnlyTakesAKey(t *testing.T) {
	got, err := choose(entries(), options{only: "k00000003f2"})
	if err != nil || !slices.Equal(ids(got), []int{10}) {
		t.Errorf("--only key: %v, %v", ids(got), err)
	}
	got, _ = choose(entries(), options{only: "world/f.go:11#"})
	if !slices.Equal(ids(got), []int{10}) {
		t.Errorf("--only id: %v", ids(got))
	}
}

// TestKeysAreUniqueInTheTree: every mutant of the tree has its own key,
// and a shared key is refused.
func TestKeysAreUniqueInTheTree(t *testing.T) {
	all, err := findAll("../../..", true)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range all {
		if len(e.Key) != 11 || e.Key[0] != 'k' {
			t.Fatalf("mutant %d has key %q", e.ID, e.Key)
		}
	}
	es := entries()
	es[7].Key = es[2].Key
	if uniqueKeys(es) == nil {
		t.Error("two mutants with one key passed")
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

// TestKeysFileNamesEveryBuiltMutant: the schema build's keys.go parses as
// package active and maps every built mutant's key to its number, and no
// dropped one's.
func TestKeysFileNamesEveryBuiltMutant(t *testing.T) {
	es := entries()
	src := keysFile(es, map[int]string{4: "does not compile"})
	f, err := parser.ParseFile(token.NewFileSet(), "keys.go", src, 0)
	if err != nil || f.Name.Name != "active" {
		t.Fatalf("keys.go: %v\n%s", err, src)
	}
	for _, e := range es {
		has := strings.Contains(string(src), fmt.Sprintf("%q: %d,", e.Key, e.ID))
		if has == (e.ID == 4) {
			t.Errorf("mutant %d (%s): in the table %v", e.ID, e.Key, has)
		}
	}
}
