package guided

import (
	"bytes"
	"compress/flate"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/run"
	"github.com/podsim/podsim/sim"
)

func loopOutcomes(t *testing.T, f plan.Family, c *Corpus, seed, runs uint64, parallel int, mutant string) []Outcome {
	t.Helper()
	var outs []Outcome
	Loop(context.Background(), f, c, Options{Seed: seed, Runs: runs, Parallel: parallel, Check: run.CheckOptions{Mutant: mutant}},
		func(o Outcome) { outs = append(outs, o) })
	if uint64(len(outs)) != runs {
		t.Fatalf("%d outcomes, want %d", len(outs), runs)
	}
	return outs
}

// fingerprint is what a loop's results and corpus say, as bytes.
func fingerprint(outs []Outcome) []string {
	var fp []string
	for _, o := range outs {
		fp = append(fp, o.Result.TraceSHA, o.Input.Token())
	}
	return fp
}

func corpusBytes(t *testing.T, c *Corpus) []byte {
	t.Helper()
	dir := t.TempDir()
	if err := c.Save(dir); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(Path(dir, c.Family))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestLoopIsDeterministic: the same seed gives the same runs and the same
// corpus bytes whatever the parallelism; another seed gives other runs.
func TestLoopIsDeterministic(t *testing.T) {
	f := familyNamed("update-storm")
	c1, c2, c3 := NewCorpus(f.Name), NewCorpus(f.Name), NewCorpus(f.Name)
	a := loopOutcomes(t, f, c1, 7, 40, 1, "")
	b := loopOutcomes(t, f, c2, 7, 40, 3, "")
	if !slices.Equal(fingerprint(a), fingerprint(b)) {
		t.Fatal("same seed, different runs at parallel 1 and 3")
	}
	if string(corpusBytes(t, c1)) != string(corpusBytes(t, c2)) {
		t.Fatal("same seed, different corpus bytes")
	}
	if len(c1.Entries) < 2 || c1.Tuples() == 0 {
		t.Fatalf("the loop kept %d entries and %d tuples: the feedback is not working", len(c1.Entries), c1.Tuples())
	}
	if slices.Equal(fingerprint(a), fingerprint(loopOutcomes(t, f, c3, 8, 40, 2, ""))) {
		t.Fatal("seeds 7 and 8 gave the same runs")
	}
}

// TestLoopKeepsEntriesOnVKFamilies: on every virtual-kubelet family (whose
// runs record the VK coverage, oracle/vkcoverage) the loop keeps entries
// and mutates them, the same runs and corpus bytes at parallel 1 and 3.
func TestLoopKeepsEntriesOnVKFamilies(t *testing.T) {
	for _, f := range plan.VKFamilies() {
		c1, c2 := NewCorpus(f.Name), NewCorpus(f.Name)
		a := loopOutcomes(t, f, c1, 5, 48, 1, "")
		b := loopOutcomes(t, f, c2, 5, 48, 3, "")
		if !slices.Equal(fingerprint(a), fingerprint(b)) || string(corpusBytes(t, c1)) != string(corpusBytes(t, c2)) {
			t.Fatalf("%s: same seed, other runs or corpus at parallel 1 and 3", f.Name)
		}
		if len(c1.Entries) < 2 || c1.Tuples() == 0 || c1.Transitions() == 0 || c1.MutatedRuns == 0 {
			t.Fatalf("%s: the loop kept %d entries, %d tuples, %d transitions, mutated %d runs: no feedback",
				f.Name, len(c1.Entries), c1.Tuples(), c1.Transitions(), c1.MutatedRuns)
		}
	}
}

// TestCorpusResumes: 24 runs, saved, loaded and 24 more are the same runs
// and the same corpus as 48 in one go.
func TestCorpusResumes(t *testing.T) {
	f := familyNamed("grace-shortening")
	whole := NewCorpus(f.Name)
	all := loopOutcomes(t, f, whole, 3, 48, 2, "")
	dir := t.TempDir()
	first := NewCorpus(f.Name)
	parts := loopOutcomes(t, f, first, 3, 24, 2, "")
	if err := first.Save(dir); err != nil {
		t.Fatal(err)
	}
	resumed, err := Load(dir, f.Name)
	if err != nil {
		t.Fatal(err)
	}
	parts = append(parts, loopOutcomes(t, f, resumed, 3, 24, 2, "")...)
	if !slices.Equal(fingerprint(all), fingerprint(parts)) {
		t.Fatal("a resumed loop made other runs than one loop")
	}
	if string(corpusBytes(t, whole)) != string(corpusBytes(t, resumed)) {
		t.Fatal("a resumed corpus differs from one loop's")
	}
	if resumed.Runs != 48 {
		t.Fatalf("resumed corpus counts %d runs, want 48", resumed.Runs)
	}
}

func TestLoadRejectsBadCorpus(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"header":  "not a corpus\n",
		"family":  corpusHeader + "\nfamily swarm\n",
		"runs":    corpusHeader + "\nfamily early-kill\nruns x\n",
		"entry":   corpusHeader + "\nfamily early-kill\nnext 5\nentry 1 1 g1:!!\n",
		"unknown": corpusHeader + "\nfamily early-kill\nbogus 1\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, "early-kill.corpus"), []byte(text), 0o666); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(dir, "early-kill"); err == nil {
			t.Errorf("%s: a bad corpus loaded", name)
		}
	}
	if c, err := Load(t.TempDir(), "early-kill"); err != nil || len(c.Entries) != 0 {
		t.Fatalf("a missing corpus: %v, %d entries; want an empty one", err, len(c.Entries))
	}
}

// TestSeedInputIsTheSeed: a fresh input is exactly the random strategy's
// seed, so the loop's fresh runs are random's runs.
func TestSeedInputIsTheSeed(t *testing.T) {
	f := familyNamed("swarm")
	for seed := uint64(0); seed < 4; seed++ {
		_, r := RunInput(f, SeedInput(seed), run.CheckOptions{})
		if want := run.RunSeed(f, seed, sim.RandomWalk{}, run.CheckOptions{}); r.TraceSHA != want.TraceSHA {
			t.Fatalf("seed %d: input trace %s, seed trace %s", seed, r.TraceSHA, want.TraceSHA)
		}
	}
}

// TestFailingRunReplaysFromItsToken: a guided run that fails replays, from
// the token the results carry, to the same trace and the same failure, and
// its Case shrinks.
func TestFailingRunReplaysFromItsToken(t *testing.T) {
	f := familyNamed("kill-during-create")
	var failed *Outcome
	for _, o := range loopOutcomes(t, f, NewCorpus(f.Name), 1, 16, 2, "B1") {
		if o.Result.Failed() && o.Index >= Batch { // a mutated input, not a fresh seed
			failed = &o
			break
		}
	}
	if failed == nil {
		t.Fatal("B1 survived 8 guided runs after the first batch")
	}
	in, err := ParseToken(failed.Result.Input)
	if err != nil {
		t.Fatal(err)
	}
	rp := Replay(f, in, run.CheckOptions{Mutant: "B1"})
	if rp.TraceSHA != failed.Result.TraceSHA || !rp.Failed() || rp.Trace != failed.Trace {
		t.Fatalf("replay: trace %s failed=%v; the run: trace %s", rp.TraceSHA, rp.Failed(), failed.Result.TraceSHA)
	}
	if ok := Replay(f, in, run.CheckOptions{}); ok.Failed() {
		t.Fatalf("the same input fails on the correct code: %s", ok.Result)
	}
}

// TestTokenRoundTrip: a token reads back as the input it was written from,
// 64-bit tails included; a g2 token's bytes are those its format fixes
// (worked by hand from token.go's comment), whatever the Go release; a g1
// token still reads; malformed tokens are refused.
func TestTokenRoundTrip(t *testing.T) {
	in := Input{Plan: Stream{Choices: []int{0, 5, 1 << 20}, Tail: 1<<63 + 5, Seeded: true},
		Schedule: Stream{Choices: []int{3}, Tail: 1<<64 - 1}, Faults: Stream{Tail: 9, Seeded: true, Bias: 16}}
	back, err := ParseToken(in.Token())
	if err != nil {
		t.Fatal(err)
	}
	if back.Token() != in.Token() || !reflect.DeepEqual(back, in) {
		t.Fatalf("round trip: %+v, want %+v", back, in)
	}
	// plan 0,0,0,1,9=(1|8),1; schedule 0,0,0,0; faults 1,2,0,0: 14 nibbles, 00 01 91 00 00 12 00;
	// with choice 1 instead of 9, 13 nibbles and a zero pad: 00 01 10 00 01 20 00.
	nine := Input{Plan: Stream{Choices: []int{9}}, Faults: Stream{Tail: 2, Seeded: true}}
	if got := nine.Token(); got != "g2:AAGRAAASAA" {
		t.Errorf("token of %+v: %s, want g2:AAGRAAASAA", nine, got)
	}
	one := Input{Plan: Stream{Choices: []int{1}}, Faults: Stream{Tail: 2, Seeded: true}}
	if got := one.Token(); got != "g2:AAEQAAEgAA" {
		t.Errorf("token of %+v: %s, want g2:AAEQAAEgAA", one, got)
	}
	// a g1 token (deflated byte varints, before session 38) reads as the input it was written from
	g1, err := ParseToken("g1:" + g1Body(t, nine))
	if err != nil || !reflect.DeepEqual(g1, nine) {
		t.Errorf("g1 token: %+v, %v; want %+v", g1, err, nine)
	}
	if _, err := ParseToken(nibbles("0" + strings.Repeat("f", 21) + "1" + "00" + "0000" + "0000" + "0")); err != nil {
		t.Errorf("a tail of 2^64-1 written nibble by nibble: %v", err)
	}
	b64 := func(b ...byte) string { return "g2:" + base64.RawURLEncoding.EncodeToString(b) }
	for _, bad := range []string{"", "g1:", "g2:", "g2:AAAA", "g1:%%%", "g2:%%%", "g3:AAGRAAASAA", "g2:" + in.Token()[3:10],
		b64(0x00, 0x08), // a number cut short: its last nibble says more follow
		b64(0x00, 0x01, 0x10, 0x00, 0x01, 0x20, 0x05),                               // the pad of an odd count is not zero
		b64(0x00, 0x01, 0x91, 0x00, 0x00, 0x12, 0x00, 0x00),                         // two nibbles after the streams
		b64(bytes.Repeat([]byte{0xff}, 12)...),                                      // a number past 64 bits
		nibbles("0" + strings.Repeat("f", 21) + "2" + "00" + "0000" + "0000" + "0"), // a tail whose 22nd nibble carries past bit 63
	} {
		if _, err := ParseToken(bad); err == nil {
			t.Errorf("token %q accepted", bad)
		}
	}
}

// nibbles is the g2 token of nibbles written in hex, one digit each.
func nibbles(hexDigits string) string {
	b, err := hex.DecodeString(hexDigits)
	if err != nil {
		panic(err)
	}
	return "g2:" + base64.RawURLEncoding.EncodeToString(b)
}

// g1Body is in as g1 wrote it: byte varints, deflated.
func g1Body(t testing.TB, in Input) string {
	var raw []byte
	for _, s := range []Stream{in.Plan, in.Schedule, in.Faults} {
		for _, x := range streamHeader(s) {
			raw = binary.AppendUvarint(raw, x)
		}
		for _, c := range s.Choices {
			raw = binary.AppendUvarint(raw, uint64(c))
		}
	}
	var b bytes.Buffer
	w, err := flate.NewWriter(&b, flate.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(raw)
	w.Close()
	return base64.RawURLEncoding.EncodeToString(b.Bytes())
}

// TestBiasedFaults: a biased stream answers the top option (a fault, for
// the fake runtime) about once in Bias draws past its choices, and an
// unbiased one with the same tail far less often.
func TestBiasedFaults(t *testing.T) {
	count := func(s Stream) int {
		src, top := s.source(), 0
		for i := 0; i < 4000; i++ {
			if src.Intn(1000) == 999 {
				top++
			}
		}
		return top
	}
	biased, plain := count(Stream{Tail: 1, Seeded: true, Bias: 4}), count(Stream{Tail: 1, Seeded: true})
	if biased < 800 || plain > 20 {
		t.Fatalf("top answers: biased %d, plain %d of 4000", biased, plain)
	}
	if z := count(Stream{Choices: []int{999}}); z != 1 {
		t.Fatalf("an unseeded stream answered the top %d times, want once (its one choice)", z)
	}
}

// TestGuidedCorrectCodeHasNoFalseAlarms: guided runs of the correct code,
// every family, biased faults and mutated plans included, all pass.
func TestGuidedCorrectCodeHasNoFalseAlarms(t *testing.T) {
	runs := uint64(32)
	if testing.Short() {
		runs = 8
	}
	for _, f := range plan.Families() {
		for _, o := range loopOutcomes(t, f, NewCorpus(f.Name), 11, runs, 2, "") {
			if o.Result.Failed() {
				t.Errorf("%s run %d: %s\n  input %s", f.Name, o.Index, o.Result, o.Result.Input)
			}
		}
	}
}
