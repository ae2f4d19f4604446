package main

import (
	"strconv"
	"strings"
	"testing"
)

// Fuzz targets for every parser of user input: none may panic, and what
// each accepts must be well formed.
//
//	go test -run '^$' -fuzz FuzzParseSeed ./cmd/simrun   (likewise Shard, SeedRange, StrategyArgs, Results)

func FuzzParseSeed(f *testing.F) {
	for _, s := range []string{"0", "17", "18446744073709551615", "-1", "x", "", " 1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := parseSeed(s)
		if err != nil {
			return
		}
		if s == "" || strings.Trim(s, "0123456789") != "" {
			t.Fatalf("%q accepted as seed %d: want digits only", s, v)
		}
		if strings.TrimLeft(s, "0") != strings.TrimLeft(strconv.FormatUint(v, 10), "0") {
			t.Fatalf("%q parsed as %d", s, v)
		}
	})
}

func FuzzParseShard(f *testing.F) {
	for _, s := range []string{"0/1", "3/4", "4/4", "1-4", "", "/", "a/b", "0/0", "0/18446744073709551615"} {
		f.Add(s, uint64(20))
	}
	f.Fuzz(func(t *testing.T, s string, count uint64) {
		sh, err := parseShard(s)
		if err != nil {
			return
		}
		if sh.n == 0 || sh.k >= sh.n {
			t.Fatalf("%q accepted as %d/%d", s, sh.k, sh.n)
		}
		// count is the number of offsets k, k+n, … below count; the last
		// is below count and the next is not (or would overflow).
		c := sh.count(count)
		if c > count || (c > 0 && sh.k+(c-1)*sh.n >= count) {
			t.Fatalf("%q: count(%d) = %d is too many", s, count, c)
		}
		if next := sh.k + c*sh.n; c*sh.n/sh.n == c && next >= sh.k && next < count {
			t.Fatalf("%q: count(%d) = %d misses offset %d", s, count, c, next)
		}
		// The shards of a small range partition it.
		if sh.n <= 8 {
			total := uint64(0)
			for k := uint64(0); k < sh.n; k++ {
				total += shard{k, sh.n}.count(20)
			}
			if total != 20 {
				t.Fatalf("%q: shards cover %d of 20 seeds", s, total)
			}
		}
	})
}

// FuzzSeedRange: an accepted --start/--seeds range never wraps past the
// largest seed.
func FuzzSeedRange(f *testing.F) {
	f.Add(uint64(0), uint64(1))
	f.Add(uint64(18446744073709551615), uint64(3))
	f.Add(uint64(18446744073709551615), uint64(1))
	f.Add(uint64(18446744073609551616), uint64(100000000))
	f.Fuzz(func(t *testing.T, start, count uint64) {
		if checkSeedRange(start, count) != nil {
			return
		}
		if count == 0 || count > maxSeeds || start+(count-1) < start {
			t.Fatalf("accepted --start %d --seeds %d", start, count)
		}
	})
}

// FuzzStrategyArgs: --strategy and --pct-depth.
func FuzzStrategyArgs(f *testing.F) {
	for _, c := range []struct {
		name  string
		depth int
	}{{"random", 3}, {"pct", 3}, {"pct", 0}, {"pct", 2000}, {"pct", 2000000000}, {"dfs", 1}, {"", 3}, {"PCT", 3}} {
		f.Add(c.name, c.depth)
	}
	f.Fuzz(func(t *testing.T, name string, depth int) {
		st, err := strategyNamed(name, depth)
		if err != nil {
			if !strings.Contains(err.Error(), "strategy") && !strings.Contains(err.Error(), "--pct-depth") {
				t.Fatalf("%q %d: error %q names neither the strategy nor the depth", name, depth, err)
			}
			return
		}
		if name != "random" && (name != "pct" || depth < 1 || depth > maxPCTDepth) || st == nil {
			t.Fatalf("accepted strategy %q depth %d", name, depth)
		}
	})
}

// FuzzParseResults: merge's reader. What it accepts is run, results, end
// segments whose counts agree, each result well formed.
func FuzzParseResults(f *testing.F) {
	run := `{"record":"run","tool":"simrun","version":"devel","commit":"unknown","go":"go1","command":"run","args":[],"started":"x"}`
	row := `{"scenario":"swarm","seed":1,"strategy":"random","verdict":"pass","trace_sha256":"` +
		"0123456789012345678901234567890123456789012345678901234567890123" + `","steps":5,"virtual_time":"1s"}`
	end := func(n int) string {
		return `{"record":"end","finished":"y","interrupted":false,"results":` + strconv.Itoa(n) + `,"failed":0,"planned":1}`
	}
	f.Add([]byte(run + "\n" + end(0) + "\n"))
	f.Add([]byte(run + "\n" + row + "\n" + end(1) + "\n"))
	f.Add([]byte(run + "\n" + row + "\n" + end(1) + "\n" + run + "\n" + end(0) + "\n"))
	f.Add([]byte(run + "\n" + row + "\n"))
	f.Add([]byte(`{"results":[]}`))
	f.Add([]byte(`{`))
	f.Fuzz(func(t *testing.T, data []byte) {
		segs, err := parseResults(data)
		if err != nil {
			return
		}
		if len(segs) == 0 {
			t.Fatal("accepted a file with no segment")
		}
		for _, s := range segs {
			if s.end.Results != uint64(len(s.results)) {
				t.Fatalf("accepted an end record counting %d of %d results", s.end.Results, len(s.results))
			}
			for _, r := range s.results {
				if r.Scenario == "" || len(r.TraceSHA256) != 64 || (r.Verdict != "pass" && r.Verdict != "fail") {
					t.Fatalf("accepted a malformed result %+v", r)
				}
			}
		}
	})
}

// FuzzParseTrace: replay --expect's reader. What it accepts is non-empty,
// newline-terminated, one well-formed record per line with time never
// going backwards.
//
//	go test -run '^$' -fuzz FuzzParseTrace ./cmd/simrun
func FuzzParseTrace(f *testing.F) {
	f.Add([]byte("0s - go client/0\n0s client/0 lock podLock\n500ms - advance clock\n500ms worker/a rand 3 of 5\n"))
	f.Add([]byte("0s - go a\n"))
	f.Add([]byte("1s - go a\n0s a exit\n"))
	f.Add([]byte("0s - go a"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		lines, err := parseTrace(data)
		if err != nil {
			return
		}
		if len(lines) == 0 || strings.Join(lines, "\n")+"\n" != string(data) {
			t.Fatalf("accepted %q as %d lines that do not rebuild it", data, len(lines))
		}
		for _, l := range lines {
			if _, err := traceRecordTime(l); err != nil {
				t.Fatalf("accepted a malformed record %q: %v", l, err)
			}
		}
	})
}
