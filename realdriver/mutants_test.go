package realdriver

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/podsim/podsim/plan"
)

// fakeRun is a deterministic stand-in for a target's run: family b finds
// "X" at seeds divisible by 3, family a finds nothing.
func fakeRun(mode string, f plan.Family, seed uint64) MutantRun {
	r := MutantRun{TraceSHA: fmt.Sprintf("%s-%s-%d", mode, f.Name, seed)}
	if f.Name == "b" && seed%3 == 0 {
		r.Keys = []string{"X"}
	}
	return r
}

// TestMutantSweepStopsAtTheFirstNewKey: recorded runs against their own
// record survive with no trace changed; a base whose run lacks a key the
// run has is a kill at exactly that run, naming the key, with no run made
// after it; a base with another trace digest counts that run as changed
// and is no kill; only c, of three families, is not run when the list
// names a and b; a run the base lacks, a list naming no family and a
// malformed base are errors.
func TestMutantSweepStopsAtTheFirstNewKey(t *testing.T) {
	modes, fams := []string{"plain", "hold"}, []plan.Family{{Name: "a"}, {Name: "b"}, {Name: "c"}}
	var progress strings.Builder
	lines, _, err := MutantSweep(&progress, nil, modes, fams, "a,b", 1, 4, fakeRun)
	if err != nil || len(lines) != 16 {
		t.Fatalf("%d lines (%v), want 4 seeds × 2 modes × 2 families", len(lines), err)
	}
	if !strings.HasPrefix(progress.String(), "run a plain seed 1\nrun b plain seed 1\nrun a hold seed 1\n") {
		t.Fatalf("runs not named in seed, mode, family order: %q", progress.String()[:60])
	}
	file := filepath.Join(t.TempDir(), "base.tsv")
	write := func(ls []string) map[string]string { return writeBase(t, file, ls) }
	if _, v, err := MutantSweep(io.Discard, write(lines), modes, fams, "a,b", 1, 4, fakeRun); err != nil || v.Killed || v.Runs != 16 || v.Traced != 0 {
		t.Fatalf("against its own record: %+v, %v", v, err)
	}
	hit := slices.IndexFunc(lines, func(l string) bool { return strings.HasSuffix(l, "\tX") })
	tampered := slices.Clone(lines)
	tampered[hit] = strings.TrimSuffix(tampered[hit], "X")
	tampered[0] = strings.Replace(tampered[0], "plain-a-1", "0000", 1)
	_, v, err := MutantSweep(io.Discard, write(tampered), modes, fams, "a,b", 1, 4, fakeRun)
	want := MutantVerdict{Killed: true, Family: "b", Seed: 3, Mode: "plain", Keys: []string{"X"}, Runs: hit + 1, Traced: 1, FirstTraced: "plain a 1"}
	if err != nil || fmt.Sprint(v) != fmt.Sprint(want) {
		t.Fatalf("base without run %d's key (%q): %+v (%v), want %+v", hit, lines[hit], v, err, want)
	}
	if _, _, err := MutantSweep(io.Discard, write(lines[:3]), modes, fams, "a,b", 1, 4, fakeRun); err == nil {
		t.Error("a base without the fourth run accepted")
	}
	if _, _, err := MutantSweep(io.Discard, nil, modes, fams, "x,y", 1, 4, fakeRun); err == nil {
		t.Error("a family list naming none of the families accepted")
	}
	for _, bad := range []string{"plain\tswarm\tx\tsha\t\n", "plain\tswarm\t1\tsha\n"} {
		if err := os.WriteFile(file, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadMutantBase(file); err == nil {
			t.Errorf("bad base line %q accepted", bad)
		}
	}
}

// TestMutantToolRecordsThenJudges: Run with -mutant.record writes every
// run's line; with that file as -mutant.base it writes the verdict, no
// kill; with neither, or without seeds, it skips.
func TestMutantToolRecordsThenJudges(t *testing.T) {
	dir := t.TempDir()
	record, out, none := filepath.Join(dir, "base.tsv"), filepath.Join(dir, "v.json"), ""
	sweep := func(base map[string]string) ([]string, MutantVerdict) {
		lines, v, err := MutantSweep(io.Discard, base, []string{"plain"}, []plan.Family{{Name: "a"}, {Name: "b"}}, "", 1, 3, fakeRun)
		if err != nil {
			t.Fatal(err)
		}
		return lines, v
	}
	MutantFlags{&record, &none, &none}.Run(t, 3, sweep)
	b, err := os.ReadFile(record)
	if err != nil || strings.Count(string(b), "\n") != 6 {
		t.Fatalf("record: %q, %v", b, err)
	}
	MutantFlags{&none, &record, &out}.Run(t, 3, sweep)
	if b, err := os.ReadFile(out); err != nil || string(b) != `{"killed":false,"seed":0,"runs":6,"traces_changed":0}` {
		t.Fatalf("verdict: %s, %v", b, err)
	}
	t.Run("skips", func(t *testing.T) {
		MutantFlags{&none, &none, &none}.Run(t, 3, sweep)
		t.Error("ran with neither flag")
	})
}

// TestMutantSweepCountsGoneKeys: a base whose runs had keys the mutant's
// runs lack is no kill, but the verdict names the keys, once each and
// sorted, and counts the runs that lost one; a base of the runs
// themselves loses nothing.
func TestMutantSweepCountsGoneKeys(t *testing.T) {
	modes, fams := []string{"plain"}, []plan.Family{{Name: "a"}, {Name: "b"}}
	lines, _, err := MutantSweep(io.Discard, nil, modes, fams, "", 1, 3, fakeRun)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "base.tsv")
	if _, v, _ := MutantSweep(io.Discard, writeBase(t, file, lines), modes, fams, "", 1, 3, fakeRun); v.GoneRuns != 0 || v.Gone != nil {
		t.Fatalf("against its own record: %+v", v)
	}
	richer := slices.Clone(lines)
	for i, l := range richer {
		switch {
		case strings.HasPrefix(l, "plain\ta\t1\t"):
			richer[i] = l + "Z|Y" // a's seed 1 had two keys
		case strings.HasPrefix(l, "plain\tb\t3\t"):
			richer[i] = l + "|Y" // b's seed 3 had X and Y
		}
	}
	_, v, err := MutantSweep(io.Discard, writeBase(t, file, richer), modes, fams, "", 1, 3, fakeRun)
	if err != nil || v.Killed || v.GoneRuns != 2 || !slices.Equal(v.Gone, []string{"Y", "Z"}) {
		t.Fatalf("base with keys the runs lack: %+v (%v), want no kill, Y and Z gone in 2 runs", v, err)
	}
}
