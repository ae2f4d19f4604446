package main

import (
	"encoding/json"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/podsim/podsim/internal/mutation"
)

// entry is a mutant with its number in the schema build.
type entry struct {
	ID      int
	Package string
	mutation.Mutant
}

// findAll lists the mutants of scope, numbered from 0 in package, file and
// source order.
func findAll(root string, vk bool) ([]entry, error) {
	var out []entry
	pkgs := make([]string, 0, len(scope))
	for p := range scope {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	if vk {
		pkgs = append(pkgs, vkPackage) // after the others: their numbers stay
	}
	for _, p := range pkgs {
		files := slices.Clone(scope[p])
		if p == vkPackage {
			files = slices.Clone(vkScope)
		}
		sort.Strings(files)
		for _, f := range files {
			rel := p + "/" + f
			src, err := os.ReadFile(filepath.Join(root, rel))
			if err != nil {
				return nil, err
			}
			ms, err := mutation.Find(rel, src)
			if err != nil {
				return nil, err
			}
			for _, m := range ms {
				out = append(out, entry{ID: len(out), Package: p, Mutant: m})
			}
		}
	}
	return out, uniqueKeys(out)
}

// uniqueKeys fails if two mutants share a key (40 bits of a hash: about
// one tree in 600,000 of 1,900 mutants), which would make --ids ambiguous.
func uniqueKeys(es []entry) error {
	byKey := make(map[string]int, len(es))
	for _, e := range es {
		if n, dup := byKey[e.Key]; dup {
			return fmt.Errorf("mutants %d and %d share the key %s", n, e.ID, e.Key)
		}
		byKey[e.Key] = e.ID
	}
	return nil
}

// badInput is an error in what the user gave (a flag's value, a file's
// content): main exits 2 on it.
type badInput struct{ error }

// choose applies --only, --ids and --sample: a sample takes up to --sample
// mutants of each package, drawn by a PCG stream seeded with --seed, and
// keeps them in ID order.
func choose(all []entry, o options) ([]entry, error) {
	want, err := wanted(all, o.ids)
	if err != nil {
		return nil, err
	}
	var pool []entry
	for _, e := range all {
		only := o.only == "" || strings.Contains(e.Mutant.ID(), o.only) || e.Key == o.only
		if only && (want == nil || want[e.ID]) {
			pool = append(pool, e)
		}
	}
	if o.sample <= 0 {
		return pool, nil
	}
	var r rand.PCG
	r.Seed(o.seed, 0x6d7574)
	byPkg := map[string][]entry{}
	var pkgs []string
	for _, e := range pool {
		if byPkg[e.Package] == nil {
			pkgs = append(pkgs, e.Package)
		}
		byPkg[e.Package] = append(byPkg[e.Package], e)
	}
	var out []entry
	for _, p := range pkgs {
		es := byPkg[p]
		for i := len(es) - 1; i > 0; i-- { // Fisher–Yates, as math/rand/v2's Shuffle, on draws podsim owns
			j := draw(&r, uint64(i+1))
			es[i], es[j] = es[j], es[i]
		}
		out = append(out, es[:min(o.sample, len(es))]...)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// wanted reads an --ids file: mutant numbers of this tree, or keys (the
// "k…" names -list prints, which survive renumbering), one a line or
// separated by spaces. nil: no file, every mutant.
func wanted(all []entry, file string) (map[int]bool, error) {
	if file == "" {
		return nil, nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, badInput{err}
	}
	byKey := make(map[string]int, len(all))
	for _, e := range all {
		byKey[e.Key] = e.ID
	}
	want := map[int]bool{}
	for _, f := range strings.Fields(string(b)) {
		if id, ok := byKey[f]; ok {
			want[id] = true
			continue
		}
		n, err := strconv.Atoi(f)
		switch {
		case strings.HasPrefix(f, "k") && err != nil:
			return nil, badInput{fmt.Errorf("--ids %s: %s is the key of no mutant of this tree (-list prints them)", file, f)}
		case err != nil || n < 0 || n >= len(all):
			return nil, badInput{fmt.Errorf("--ids %s: %q is neither a mutant number (0 to %d) nor a key", file, f, len(all)-1)}
		}
		want[n] = true
	}
	return want, nil
}

// build is the schema binary of the sweep.
type build struct {
	bin     string
	dropped map[int]string // mutants the schema could not hold, and the compiler's word
	// unreached are the coverage marks the unmutated sweep leaves at zero.
	unreached []string
}

// buildSchema writes every file of scope with its mutants guarded, builds
// the sweep over them (go build -overlay: the work tree is never touched)
// and, when the compiler refuses a guard (a mutant that does not type
// check, e.g. an operand swap of two untyped constants), drops the mutants
// on the lines it names and tries again.
func buildSchema(root, dir string, all []entry) (*build, error) {
	b := &build{bin: filepath.Join(dir, "sweep"), dropped: map[int]string{}}
	for round := 0; round < 20; round++ {
		overlay, err := writeSchemas(root, dir, all, b.dropped)
		if err != nil {
			return nil, err
		}
		cmd := exec.CommandContext(runCtx, "go", "build", "-overlay", overlay, "-o", b.bin, "./internal/mutation/sweep")
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		if err == nil {
			return b, nil
		}
		if n := dropAt(string(out), all, b.dropped); n == 0 {
			return nil, fmt.Errorf("schema build failed and named no mutant:\n%s", out)
		}
	}
	return nil, fmt.Errorf("schema build: too many rounds")
}

func writeSchemas(root, dir string, all []entry, dropped map[int]string) (string, error) {
	byFile := map[string][]entry{}
	var files []string
	for _, e := range all {
		if _, gone := dropped[e.ID]; gone {
			continue
		}
		if byFile[e.File] == nil {
			files = append(files, e.File)
		}
		byFile[e.File] = append(byFile[e.File], e)
	}
	replace := map[string]string{}
	for _, f := range files {
		abs, err := filepath.Abs(filepath.Join(root, f))
		if err != nil {
			return "", err
		}
		src, err := os.ReadFile(abs)
		if err != nil {
			return "", err
		}
		var ms []mutation.Mutant
		var ids []int
		for _, e := range byFile[f] {
			ms, ids = append(ms, e.Mutant), append(ids, e.ID)
		}
		schema, err := mutation.Schema(src, ms, ids)
		if err != nil {
			return "", err
		}
		to := filepath.Join(dir, strings.ReplaceAll(f, "/", "_"))
		if err := os.WriteFile(to, schema, 0o644); err != nil {
			return "", err
		}
		replace[abs] = to
	}
	keysAt, err := filepath.Abs(filepath.Join(root, "internal", "mutation", "active", "keys.go"))
	if err != nil {
		return "", err
	}
	to := filepath.Join(dir, "active_keys.go")
	if err := os.WriteFile(to, keysFile(all, dropped), 0o644); err != nil {
		return "", err
	}
	replace[keysAt] = to
	js, err := json.Marshal(map[string]any{"Replace": replace})
	if err != nil {
		return "", err
	}
	overlay := filepath.Join(dir, "overlay.json")
	return overlay, os.WriteFile(overlay, js, 0o644)
}

// keysFile is internal/mutation/active/keys.go of the schema build: every
// built mutant's key and number, so that PODSIM_MUTANT takes either.
func keysFile(all []entry, dropped map[int]string) []byte {
	var b strings.Builder
	b.WriteString("// Code generated by internal/mutation/mutate for one schema build. DO NOT EDIT.\n\npackage active\n\n")
	b.WriteString("var keys = map[string]int{\n")
	for _, e := range all {
		if _, gone := dropped[e.ID]; !gone {
			fmt.Fprintf(&b, "\t%q: %d,\n", e.Key, e.ID)
		}
	}
	b.WriteString("}\n")
	return []byte(b.String())
}

var compileError = regexp.MustCompile(`(?m)^(?:\./)?([\w./-]+\.go):(\d+):\d+: (.*)$`)

// dropAt drops the live mutants whose range covers a line the compiler
// complains about; it returns how many it dropped.
func dropAt(out string, all []entry, dropped map[int]string) int {
	n := 0
	for _, m := range compileError.FindAllStringSubmatch(out, -1) {
		line, _ := strconv.Atoi(m[2])
		for _, e := range all {
			if _, gone := dropped[e.ID]; gone || !strings.HasSuffix(m[1], strings.ReplaceAll(e.File, "/", "_")) {
				continue
			}
			if e.Line <= line && line <= e.Line+strings.Count(e.Old, "\n") {
				dropped[e.ID] = m[3]
				n++
			}
		}
	}
	return n
}

// draw is a uniform number below n from src: math/rand/v2's reduction
// (Rand.uint64n: a power of two masks the word, otherwise Lemire's
// multiply-and-reject), restated so that the sample is this tool's and no
// Go release's (its Shuffle's algorithm is not promised). The tool may
// not import podsim's sim, which owns the same reduction: it mutates it.
func draw(src *rand.PCG, n uint64) int {
	if n&(n-1) == 0 {
		return int(src.Uint64() & (n - 1))
	}
	hi, lo := bits.Mul64(src.Uint64(), n)
	for thresh := -n % n; lo < thresh; {
		hi, lo = bits.Mul64(src.Uint64(), n)
	}
	return int(hi)
}
