package main

import (
	"strconv"
	"strings"
	"testing"
)

// Fuzz targets for every parser of user input: none may panic, and what
// each accepts must be well formed.
//
//	go test -run '^$' -fuzz FuzzParseSeed ./cmd/simrun   (likewise Shard, Results)

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
	for _, s := range []string{"0/1", "3/4", "4/4", "1-4", "", "/", "a/b", "0/0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sh, err := parseShard(s)
		if err != nil {
			return
		}
		if sh.n == 0 || sh.k >= sh.n {
			t.Fatalf("%q accepted as %d/%d", s, sh.k, sh.n)
		}
		// The shards of a range partition it.
		total := 0
		for k := uint64(0); k < min(sh.n, 8); k++ {
			total += len(shard{k, sh.n}.seeds(0, 20))
		}
		if sh.n <= 8 && total != 20 {
			t.Fatalf("%q: shards cover %d of 20 seeds", s, total)
		}
	})
}

func FuzzParseResults(f *testing.F) {
	f.Add([]byte(`{"results":[]}`))
	f.Add([]byte(`{"results":[{"scenario":"swarm","seed":1,"strategy":"random","verdict":"pass","trace_sha256":"` +
		"0123456789012345678901234567890123456789012345678901234567890123" + `","steps":5,"virtual_time":"1s"}]}`))
	f.Add([]byte(`{`))
	f.Fuzz(func(t *testing.T, data []byte) {
		results, err := parseResults(data)
		if err != nil {
			return
		}
		for _, r := range results {
			if r.Scenario == "" || len(r.TraceSHA256) != 64 || (r.Verdict != "pass" && r.Verdict != "fail") {
				t.Fatalf("accepted a malformed result %+v", r)
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
