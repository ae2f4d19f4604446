package realkubelet

import (
	"bufio"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/podsim/podsim/plan"
)

// The mutation sweep's tool (realrun mutation runs it): the same runs as
// the gate's (every family, seeds -sweep.start on, the wake-up modes
// -gate.modes), in seed order — seed s of every family in each mode, then
// seed s+1 — so that a kill at seed s means the default sweep needs s
// seeds per family. -mutant.record writes every run's trace digest and
// finding keys (the base, on the unmutated tree; the schema build with no
// mutant on must write the same lines). -mutant.base reads such a file and
// stops at the first run with a finding key the base run lacks (the gate's
// regression), writing the verdict to -mutant.out.
var (
	mutantRecord = flag.String("mutant.record", "", "TestMutantSweep: write every run (mode, family, seed, trace digest, keys) here")
	mutantBase   = flag.String("mutant.base", "", "TestMutantSweep: stop at the first run with a finding key this recorded base lacks")
	mutantOut    = flag.String("mutant.out", "", "TestMutantSweep -mutant.base: write the verdict here (JSON)")
)

// MutantVerdict is TestMutantSweep's verdict on one mutant.
type MutantVerdict struct {
	Killed bool     `json:"killed"`
	Family string   `json:"family,omitempty"` // the first run with a new key
	Seed   uint64   `json:"seed"`
	Mode   string   `json:"mode,omitempty"`
	Keys   []string `json:"new_keys,omitempty"`
	Runs   int      `json:"runs"`           // runs made, the killing one included
	Traced int      `json:"traces_changed"` // runs whose trace differs from the base's
	// FirstTraced is the first of them ("mode family seed").
	FirstTraced string `json:"first_trace_changed,omitempty"`
}

// mutantRun is one run's line: mode, family, seed, trace digest, keys.
func mutantRun(mode, family string, seed uint64, r Result) string {
	return fmt.Sprintf("%s\t%s\t%d\t%s\t%s", mode, family, seed, r.TraceSHA, strings.Join(GateKeys(r), "|"))
}

// TestMutantSweep is the mutation sweep's tool (see above). Before each
// run it prints "run MODE FAMILY SEED" on stderr, so that the caller can
// name the run a hanging or crashing mutant was in.
func TestMutantSweep(t *testing.T) {
	if (*mutantRecord == "") == (*mutantBase == "") || *sweepSeeds == 0 {
		t.Skip("tool: needs -sweep N and one of -mutant.record, -mutant.base")
	}
	base, err := readMutantBase(*mutantBase)
	if err != nil {
		t.Fatal(err)
	}
	lines, v := mutantSweep(t, os.Stderr, base, strings.Split(*gateModes, ","), *sweepOnly, *sweepStart, *sweepSeeds)
	if base == nil {
		body := strings.Join(lines, "\n") + "\n"
		if err := os.WriteFile(*mutantRecord, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("%d runs, digest %x", len(lines), sha256.Sum256([]byte(body)))
		return
	}
	b, _ := json.Marshal(v)
	if err := os.WriteFile(*mutantOut, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// mutantSweep makes the runs of seeds start.. in each mode of every
// family (or of the comma-separated list only), seed by seed. With a base
// it stops at the first run with a key the base's run lacks; without one
// it returns every run's line.
func mutantSweep(t *testing.T, progress io.Writer, base map[string]string, modes []string, only string, start uint64, seeds int) ([]string, MutantVerdict) {
	for _, m := range modes {
		if m != "plain" && m != "hold" {
			t.Fatalf("unknown mode %q (want plain or hold)", m)
		}
	}
	var lines []string
	var v MutantVerdict
	for i := range seeds {
		seed := start + uint64(i)
		for _, mode := range modes {
			for _, f := range plan.KubeletFamilies() {
				if only != "" && !slices.Contains(strings.Split(only, ","), f.Name) {
					continue
				}
				fmt.Fprintf(progress, "run %s %s %d\n", mode, f.Name, seed)
				o := RunOptions{HoldWakes: mode == "hold"}
				r := Bubble(t, func() Result { return RunSeedWith(f, seed, o) })
				v.Runs++
				if base == nil {
					lines = append(lines, mutantRun(mode, f.Name, seed, r))
					continue
				}
				was, ok := base[fmt.Sprintf("%s\t%s\t%d", mode, f.Name, seed)]
				if !ok {
					t.Fatalf("the base has no run %s %s %d", mode, f.Name, seed)
				}
				wasSHA, wasKeys, _ := strings.Cut(was, "\t")
				if wasSHA != r.TraceSHA {
					if v.Traced++; v.Traced == 1 {
						v.FirstTraced = fmt.Sprintf("%s %s %d", mode, f.Name, seed)
					}
				}
				for _, k := range GateKeys(r) {
					if !slices.Contains(strings.Split(wasKeys, "|"), k) {
						v.Keys = append(v.Keys, k)
					}
				}
				if len(v.Keys) > 0 {
					v.Killed, v.Family, v.Seed, v.Mode = true, f.Name, seed, mode
					return lines, v
				}
			}
		}
	}
	return lines, v
}

// readMutantBase reads a -mutant.record file: "mode family seed" → "digest
// keys". Nil for no file.
func readMutantBase(file string) (map[string]string, error) {
	if file == "" {
		return nil, nil
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		p := strings.Split(sc.Text(), "\t")
		if len(p) != 5 {
			return nil, fmt.Errorf("%s: bad line %q", file, sc.Text())
		}
		if _, err := strconv.ParseUint(p[2], 10, 64); err != nil {
			return nil, fmt.Errorf("%s: bad seed in %q", file, sc.Text())
		}
		out[strings.Join(p[:3], "\t")] = p[3] + "\t" + p[4]
	}
	return out, sc.Err()
}

// TestMutantSweepStopsAtTheFirstNewKey: recorded with no mutant on, the
// same runs against their own record survive with no trace changed; a
// base whose run lacks a key the run has is a kill at exactly that run,
// naming the key, with no run made after it; a base with another trace
// digest counts that run as changed, and is no kill.
func TestMutantSweepStopsAtTheFirstNewKey(t *testing.T) {
	modes, only := []string{"plain", "hold"}, "grace-shortening,update-storm"
	lines, _ := mutantSweep(t, io.Discard, nil, modes, only, 1, 2)
	if len(lines) != 8 {
		t.Fatalf("%d runs recorded, want 2 seeds × 2 modes × 2 families", len(lines))
	}
	file := filepath.Join(t.TempDir(), "base.tsv")
	write := func(ls []string) map[string]string {
		if err := os.WriteFile(file, []byte(strings.Join(ls, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		base, err := readMutantBase(file)
		if err != nil {
			t.Fatal(err)
		}
		return base
	}
	if _, v := mutantSweep(t, io.Discard, write(lines), modes, only, 1, 2); v.Killed || v.Runs != 8 || v.Traced != 0 {
		t.Fatalf("against its own record: %+v", v)
	}
	hit := -1
	for i, l := range lines {
		if p := strings.Split(l, "\t"); p[4] != "" && hit < 0 && i > 0 {
			hit = i
		}
	}
	if hit < 0 {
		t.Fatal("no run with a finding to take away")
	}
	tampered := slices.Clone(lines)
	p := strings.Split(tampered[hit], "\t")
	tampered[hit] = strings.Join(append(p[:4], ""), "\t")
	tampered[0] = strings.Replace(tampered[0], strings.Split(lines[0], "\t")[3], "0000", 1)
	_, v := mutantSweep(t, io.Discard, write(tampered), modes, only, 1, 2)
	want := strings.Split(lines[hit], "\t")
	if !v.Killed || v.Mode != want[0] || v.Family != want[1] || fmt.Sprint(v.Seed) != want[2] ||
		strings.Join(v.Keys, "|") != want[4] || v.Runs != hit+1 || v.Traced != 1 || v.FirstTraced != strings.Join(strings.Split(lines[0], "\t")[:3], " ") {
		t.Fatalf("base without run %d's keys (%q): %+v", hit, lines[hit], v)
	}
	for _, bad := range []string{"plain\tswarm\tx\tsha\t\n", "plain\tswarm\t1\tsha\n"} {
		if err := os.WriteFile(file, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := readMutantBase(file); err == nil {
			t.Errorf("bad base line %q accepted", bad)
		}
	}
}
