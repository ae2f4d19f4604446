package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// aGuidedInput is a valid input token (a guided run of
// force-delete-failing-terminate, from run --strategy guided).
const aGuidedInput = "g1:PIyxEYAgEARvH8RMG7UOU1NzqzFyHGsxd_AfEri_21lJMyAkgeRpMWF-ivbXRC_qo-B9oFF_HatCHpxbOhVGTTmTOG1lT8-wcZWbtxzjFwAA__8"

// TestBadInputWritesNothing: every bad input of issue 18 (and the older
// ones) is one line on stderr, exit 2, nothing on stdout, and nothing
// created or left behind: each output goes under a scratch directory
// whose listing must not change.
func TestBadInputWritesNothing(t *testing.T) {
	scratch := t.TempDir()
	in := func(name string) string { return filepath.Join(scratch, name) }
	dir := in("a-dir")
	file := in("a-file")
	for _, err := range []error{os.Mkdir(dir, 0o777), os.WriteFile(file, []byte("keep\n"), 0o666)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	overParallel := fmt.Sprint(4*runtime.NumCPU() + 1)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"run", "--start", "18446744073709551615", "--seeds", "3"}, "the range passes the largest seed"},
		{[]string{"run", "--start", "18446744073709551614", "--seeds", "100000000"}, "the range passes the largest seed"},
		{[]string{"run", "--seeds", "100000001"}, "--seeds 100000001: want 1 to 100,000,000"},
		{[]string{"run", "--seeds", "0"}, "--seeds 0"},
		{[]string{"run", "--corpus", in("corpus")}, "--corpus and --rerun-corpus apply to --strategy guided or portfolio only"},
		{[]string{"run", "--rerun-corpus"}, "--corpus and --rerun-corpus apply to --strategy guided or portfolio only"},
		{[]string{"run", "--strategy", "guided", "--rerun-corpus"}, "--rerun-corpus needs --corpus DIR"},
		{[]string{"run", "--strategy", "portfolio", "--shard", "0/2"}, "--shard does not apply to --strategy portfolio"},
		{[]string{"run", "--strategy", "portfolio", "--seed", "3"}, "--seed does not apply to --strategy portfolio"},
		{[]string{"replay", "--scenario", "swarm", "--seed", "1", "--strategy", "portfolio"}, "--strategy portfolio is a sweep's"},
		{[]string{"shrink", "--scenario", "swarm", "--seed", "1", "--strategy", "portfolio"}, "--strategy portfolio is a sweep's"},
		{[]string{"run", "--strategy", "guided", "--shard", "0/2"}, "--shard does not apply to --strategy guided"},
		{[]string{"run", "--strategy", "guided", "--seed", "3"}, "--seed does not apply to --strategy guided"},
		{[]string{"run", "--strategy", "guided", "--corpus", file}, "is not a directory"},
		{[]string{"replay", "--scenario", "swarm", "--input", "g1:%%"}, "--input: not a guided input"},
		{[]string{"replay", "--scenario", "swarm", "--seed", "1", "--strategy", "guided"}, "replays a run by its --input"},
		{[]string{"shrink", "--scenario", "swarm", "--input", "g1:AAAA"}, "shrink --input needs --scenario, --out and no --seed"},
		{[]string{"replay", "--scenario", "swarm", "--input", "g1:AAAA", "--strategy", "pct"}, "--strategy and --pct-depth do not apply to --input"},
		{[]string{"replay", "--scenario", "swarm", "--input", "g1:AAAA", "--pct-depth", "2"}, "--strategy and --pct-depth do not apply to --input"},
		{[]string{"shrink", "--scenario", "swarm", "--input", "g1:AAAA", "--out", in("s.txt"), "--strategy", "random"},
			"--strategy and --pct-depth do not apply to --input"},
		{[]string{"replay", "--scenario", "swarm", "--input", aGuidedInput, "--report", in("no-dir/r.html")}, "cannot write --report"},
		{[]string{"replay", "--scenario", "swarm", "--input", aGuidedInput, "--fault-points", "--report", dir},
			"cannot write --report " + dir + ": it is a directory"},
		{[]string{"run", "--seed", "5", "--seeds", "10"}, "--seed runs one seed: it excludes --seeds"},
		{[]string{"run", "--seed", "5", "--start", "10"}, "it excludes --start"},
		{[]string{"run", "--seed", "5", "--shard", "0/2"}, "it excludes --shard"},
		{[]string{"run", "--strategy", "pct", "--pct-depth", "2000000000"}, "--pct-depth 2000000000: want 1 to 2000"},
		{[]string{"run", "--strategy", "pct", "--pct-depth", "0"}, "--pct-depth 0: want 1 to 2000"},
		{[]string{"run", "--pct-depth", "5"}, "--pct-depth applies to --strategy pct only"},
		{[]string{"run", "--parallel", "100000000"}, "--parallel 100000000: want at most 1024"},
		{[]string{"run", "--parallel", "100000000", "--force-parallel"}, "want at most 1024"},
		{[]string{"run", "--parallel", overParallel}, "add --force-parallel"},
		{[]string{"run", "--parallel", "-3"}, "--parallel -3: want at least 1"},
		{[]string{"gate", "--parallel", "100000000"}, "--parallel 100000000: want at most 1024"},
		{[]string{"gate", "--parallel", overParallel}, "add --force-parallel"},
		{[]string{"run", "--scenario", "early-kill", "--mutant", "V2"}, "mutant V2 does not apply to early-kill: it applies to recreate-same-name"},
		{[]string{"run", "--mutant", "B99"}, `unknown mutant "B99"`},
		{[]string{"run", "--shard", "4/4"}, "malformed shard"},
		{[]string{"run", "--shard", "1/0"}, "malformed shard"},
		{[]string{"run", "--seeds", "5", "--json", dir}, "it is a directory"},
		{[]string{"run", "--seeds", "5", "--junit", dir}, "it is a directory"},
		{[]string{"run", "--seeds", "5", "--json", in("missing/r.json")}, "does not exist"},
		{[]string{"run", "--seeds", "5", "--junit", in("a-file/j.xml")}, "not a directory"},
		{[]string{"run", "--seeds", "5", "--json", "/proc/podsim-r.json"}, "cannot write --json"},
		{[]string{"run", "--seeds", "5", "--json", in("same"), "--junit", in("same")}, "name the same file"},
		{[]string{"run", "--seeds", "5", "--json", "/dev/full"}, "no space left on device"},
		{[]string{"run", "--seeds", "5", "--out", file}, "is not a directory"},
		{[]string{"run", "--seeds", "5", "--out", in("a-file/sub/dir")}, "not a directory"},
		{[]string{"run", "--seeds", "5", "--out", "/proc/podsim-out"}, "cannot write --out"},
		{[]string{"replay", "--scenario", "swarm", "--seed", "1", "--trace", dir}, "it is a directory"},
		{[]string{"replay", "--scenario", "swarm", "--seed", "1", "--timeline", in("missing/t.json")}, "does not exist"},
		{[]string{"replay", "--scenario", "swarm", "--seed", "1", "--out", file}, "is not a directory"},
		{[]string{"replay", "--scenario", "swarm", "--seed", "1", "--strategy", "pct", "--pct-depth", "9999"}, "--pct-depth 9999"},
		{[]string{"shrink", "--scenario", "swarm", "--seed", "1", "--out", dir}, "it is a directory"},
		{[]string{"shrink", "--scenario", "swarm", "--seed", "1", "--out", file}, "exists: pass --force to overwrite it"},
		{[]string{"merge", "--json", dir, file}, "it is a directory"},
		{[]string{"merge"}, "merge needs at least one results file"},
		{[]string{"merge", file}, "not a simrun results file"},
	}
	before := listing(t, scratch)
	for _, c := range cases {
		out, errOut, code := simrun(t, nil, c.args...)
		if code != 2 || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: got exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", c.args, code, out, errOut, c.want)
		}
		if after := listing(t, scratch); !slices.Equal(after, before) {
			t.Fatalf("%v wrote or left files: %v, was %v", c.args, after, before)
		}
	}
}

// listing is every path under dir.
func listing(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.Walk(dir, func(path string, _ os.FileInfo, err error) error {
		out = append(out, path)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
