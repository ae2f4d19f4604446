package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/podsim/podsim/guided"
	"github.com/podsim/podsim/internal/mutation"
	"github.com/podsim/podsim/realkubelet/cmd/realrun/mutreport"
	"github.com/podsim/podsim/realkubelet/cmd/realrun/toolrun"
)

// TestMutationArgs: realrun mutation's good command lines parse (with the
// small default budget unless --seeds says otherwise); bad ones are
// refused with one line naming the flag.
func TestMutationArgs(t *testing.T) {
	ids := filepath.Join(t.TempDir(), "ids")
	if err := os.WriteFile(ids, []byte("4 7,9\n12 k0123456789\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o, err := parse([]string{"mutation"}, io.Discard)
	if err != nil || o.seeds != mutationSeeds || o.parallel != 1 || o.modes != "plain,hold" {
		t.Fatalf("mutation: %+v, %v", o, err)
	}
	o, err = parse(strings.Fields("mutation --seeds 7 --modes plain --ids 1,3-5 --parallel 2 --hang 5s --scenario swarm --json"), io.Discard)
	if err != nil || o.seeds != 7 || o.parallel != 2 || o.hang.Seconds() != 5 {
		t.Fatalf("mutation with flags: %+v, %v", o, err)
	}
	o, err = parse(strings.Fields("mutation --files pkg/kubelet/pod_workers.go,pkg/kubelet/status/status_manager.go"), io.Discard)
	if err != nil || o.files == "" {
		t.Fatalf("mutation --files: %+v, %v", o, err)
	}
	o, err = parse(strings.Fields("mutation --vk --scenario vk-swarm"), io.Discard)
	if err != nil || !o.vk || o.modes != "plain" || o.seeds != mutationSeeds {
		t.Fatalf("mutation --vk: %+v, %v", o, err)
	}
	if got, _, _ := parseIDs("1,3-5"); !equalSet(got, 1, 3, 4, 5) {
		t.Errorf("--ids 1,3-5 = %v", got)
	}
	if got, keys, err := parseIDs("@" + ids); err != nil || !equalSet(got, 4, 7, 9, 12) || !keys["k0123456789"] || len(keys) != 1 {
		t.Errorf("--ids @FILE = %v, %v, %v", got, keys, err)
	}
	bad := map[string]string{
		"mutation --seeds 0":                               "--seeds must be positive",
		"mutation --modes plain,fast":                      "unknown mode \"fast\"",
		"mutation --ids 3-x":                               "--ids: \"3-x\" is not a mutant number, range or key",
		"mutation --ids k12":                               "--ids: \"k12\" is not",
		"mutation --ids 5-2":                               "--ids: \"5-2\"",
		"mutation --ids -1":                                "--ids: \"-1\" is not",
		"mutation --ids @/nonexist/x":                      "--ids: open /nonexist/x",
		"mutation --parallel 0":                            "--parallel must be at least 1",
		"mutation --hang 0s":                               "--hang must be positive",
		"mutation --hang x":                                "invalid value",
		"mutation --scenario nope":                         "unknown scenario",
		"mutation extra":                                   "unexpected argument",
		"mutation --vk --kubernetes .":                     "--kubernetes names a kubernetes tree: with --vk, name the virtual-kubelet's with --virtual-kubelet DIR",
		"mutation --vk --modes plain":                      "--modes picks the kubelet's wake-up modes: the virtual-kubelet runs have none",
		"mutation --vk --scenario swarm":                   "unknown scenario \"swarm\" (want one of vk-",
		"mutation --virtual-kubelet /nonexist":             "not a virtual-kubelet tree",
		"run --files pkg/kubelet/pod_workers.go":           "--files is for mutation only",
		"mutation --files a.go,,b.go":                      "--files: an empty name",
		"mutation --files /abs/x.go":                       "is not a clean path relative to the tree",
		"mutation --files ../x.go":                         "is not a clean path",
		"mutation --files pkg//x.go":                       "is not a clean path",
		"mutation --files pkg/kubelet/pod_workers_test.go": "is not a non-test Go file",
		"mutation --files pkg/kubelet/README.md":           "is not a non-test Go file",
		"mutation --files a/x.go,a/x.go":                   "\"a/x.go\" is named twice",
	}
	wantParse(t, bad)
}

func equalSet(m map[int]bool, want ...int) bool {
	var got []int
	for k := range m {
		got = append(got, k)
	}
	slices.Sort(got)
	return slices.Equal(got, want)
}

// TestRealMutantsLeaveLoggingOut: the mutants of a kubelet-like file are
// Find's, in its numbering, less the removals of logging statements; a
// statement that logs and does something else is still mutated.
func TestRealMutantsLeaveLoggingOut(t *testing.T) {
	src := []byte(`package kubelet

func f(logger L, n int) int {
	klog.V(4).InfoS("x", "n", n)
	logger.Info("y")
	updateLogger.V(2).Error(nil, "z")
	m.logger.V(1).Info("w")
	m.logger.Error(nil, "v")
	m.recorder.Event("u")
	record(n)
	n--
	return n
}
`)
	all, err := mutation.Find("pkg/kubelet/pod_workers.go", src)
	if err != nil {
		t.Fatal(err)
	}
	in, logging, err := findRealMutants(src)
	if err != nil {
		t.Fatal(err)
	}
	if logging != 5 || len(in) != len(all)-5 {
		t.Fatalf("%d mutants, %d in scope, %d logging left out; want 5 left out", len(all), len(in), logging)
	}
	var kept []string
	for _, m := range in {
		kept = append(kept, string(m.Operator)+" "+m.Old)
		if all[m.Index].Old != m.Old {
			t.Errorf("mutant %d renumbered", m.Index)
		}
	}
	want := []string{"early-return ", `remove m.recorder.Event("u")`, "remove record(n)", "remove n--"}
	if !slices.Equal(kept, want) {
		t.Errorf("kept %q, want %q", kept, want)
	}
}

// TestInRun: a hang's or crash's last "run FAMILY MODE seed S" line names
// the mutant's run; another line leaves it unnamed.
func TestInRun(t *testing.T) {
	var m mutreport.Mutant
	inRun(&m, "run swarm hold seed 2")
	if m.Mode != "hold" || m.Family != "swarm" || m.Seed != 2 {
		t.Errorf("inRun = %s %s %d", m.Mode, m.Family, m.Seed)
	}
	var n mutreport.Mutant
	inRun(&n, "gate: 4 of 40 runs")
	if n.Mode != "" || n.Family != "" || n.Seed != 0 {
		t.Errorf("inRun of another line = %s %s %d", n.Mode, n.Family, n.Seed)
	}
}

// TestChosenTakesNumbersAndKeys: --ids picks mutants by number or by key;
// a key of no mutant of the tree is refused, before any build when the
// tree's file can be read.
func TestChosenTakesNumbersAndKeys(t *testing.T) {
	src := []byte("package kubelet\n\nfunc f(n int) int {\n\trecord(n)\n\tn--\n\treturn n\n}\n")
	ms, _, err := findRealMutants(src)
	if err != nil || len(ms) < 3 {
		t.Fatalf("%d mutants, %v", len(ms), err)
	}
	nums, keys, err := parseIDs("0," + ms[2].Key)
	if err != nil {
		t.Fatal(err)
	}
	got, err := chosen(ms, nums, keys)
	if err != nil || len(got) != 2 || got[0].Index != 0 || got[1].Index != 2 {
		t.Errorf("chosen = %v, %v", got, err)
	}
	if all, err := chosen(ms, nil, nil); err != nil || len(all) != len(ms) {
		t.Errorf("no --ids: %d of %d, %v", len(all), len(ms), err)
	}
	tree := t.TempDir()
	if err := os.MkdirAll(filepath.Join(tree, "pkg", "kubelet"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tree, "pkg", "kubelet", "pod_workers.go"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	kubelet := target{files: []string{"pkg/kubelet/pod_workers.go"}, logCall: logCall, source: tree}
	if err := checkKeys(kubelet, "1,"+ms[2].Key); err != nil {
		t.Errorf("a key of the tree: %v", err)
	}
	err = checkKeys(kubelet, "1,k0000000000")
	if err == nil || !strings.Contains(err.Error(), "k0000000000 is the key of no mutant") {
		t.Errorf("an unknown key: %v", err)
	}
	if err := checkKeys(kubelet, "1,999"); err == nil || !strings.Contains(err.Error(), "999 is the number of no mutant of this tree's files (they run to") {
		t.Errorf("a number past the tree's mutants: %v", err)
	}
	kubelet.source = t.TempDir()
	if err := checkKeys(kubelet, "k0000000000"); err != nil {
		t.Errorf("a tree without the file is left to the build: %v", err)
	}
}

// TestVKMutantsNumberAcrossFiles: the VK target's mutants are numbered
// through its two files (the second file's from the count of Find's
// mutants in the first, the left-out ones included), each keeps its file,
// and statements that only log or trace are left out.
func TestVKMutantsNumberAcrossFiles(t *testing.T) {
	tree := t.TempDir()
	if err := os.MkdirAll(filepath.Join(tree, "node"), 0o755); err != nil {
		t.Fatal(err)
	}
	pod := "package node\n\nfunc f(ctx C, n int) int {\n\tdefer span.End()\n\tlog.G(ctx).Debug(\"x\")\n\tspan.SetStatus(nil)\n\tctx = addPodAttributes(ctx, span, n)\n\trecord(n)\n\treturn n\n}\n"
	ctl := "package node\n\nfunc g(n int) {\n\tlogger.Info(\"y\")\n\tn--\n}\n"
	for f, src := range map[string]string{"pod.go": pod, "podcontroller.go": ctl} {
		if err := os.WriteFile(filepath.Join(tree, "node", f), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	vk := target{files: []string{"node/pod.go", "node/podcontroller.go"}, logCall: vkLogCall}
	srcs, err := vk.read(tree)
	if err != nil {
		t.Fatal(err)
	}
	ms, logging, err := vk.findMutants(srcs)
	if err != nil {
		t.Fatal(err)
	}
	first, _ := mutation.Find("node/pod.go", []byte(pod))
	var got []string
	for _, m := range ms {
		got = append(got, fmt.Sprintf("%d %s %s %s", m.Index, m.File, m.Operator, m.Old))
	}
	n := len(first)
	want := []string{"0 node/pod.go early-return ", "5 node/pod.go remove record(n)",
		fmt.Sprintf("%d node/podcontroller.go early-return ", n), fmt.Sprintf("%d node/podcontroller.go remove n--", n+2)}
	if logging != 5 || !slices.Equal(got, want) {
		t.Fatalf("%d left out, mutants %q; want 5 left out and %q", logging, got, want)
	}
}

// TestUnreachableMutantIsNoMiss: a catalogued mutant whose header expects
// it unreachable is "n/a" when not caught, leaves the caught count's total
// and does not fail the command; any other mutant not caught is "NO" and
// a miss; an unreachable one caught anyway is "yes".
func TestUnreachableMutantIsNoMiss(t *testing.T) {
	o := options{modes: "plain", start: 1, seeds: 10}
	row := func(name, expect string, first int64) mutantRow {
		return mutantRow{Name: name, Bug: "B0", Expect: expect, First: map[string]int64{"plain": first},
			Runs: map[string]int{"plain": 1}, Caught: first > 0}
	}
	var out strings.Builder
	printMutants(&out, o, []mutantRow{row("a", "regression", 3), row("b", expectUnreachable, -1), row("c", "regression", -1)})
	got := out.String()
	for _, want := range []string{"caught 1 of 2 (1 more, n/a,", " n/a ", " NO "} {
		if !strings.Contains(got, want) {
			t.Errorf("table lacks %q:\n%s", want, got)
		}
	}
	if missed(row("b", expectUnreachable, -1)) || !missed(row("c", "regression", -1)) || missed(row("a", "regression", 3)) {
		t.Error("the command's failure does not follow the table: only c is a miss")
	}
	out.Reset()
	printMutants(&out, o, []mutantRow{row("b", expectUnreachable, 2)})
	if got := out.String(); !strings.Contains(got, "caught 1 of 1;") || strings.Contains(got, "n/a") {
		t.Errorf("an unreachable mutant caught anyway:\n%s", got)
	}
}

// TestFilesOfTheTree: a file the tree lacks is refused with the tree
// named; the tree's own files pass.
func TestFilesOfTheTree(t *testing.T) {
	tree := t.TempDir()
	files := []string{"pkg/kubelet/pod_workers.go", "pkg/kubelet/status/status_manager.go"}
	for _, f := range files {
		if err := os.MkdirAll(filepath.Join(tree, filepath.Dir(f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(tree, f), []byte("package x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	kubelet := target{files: append(files, "pkg/kubelet/eviction/eviction_manager.go"), source: tree, user: tree}
	if err := kubelet.checkFiles(); err == nil || !strings.Contains(err.Error(), "has no pkg/kubelet/eviction/eviction_manager.go") {
		t.Errorf("a file the tree lacks: %v", err)
	}
	if err := (target{files: files, source: tree, user: tree}).checkFiles(); err != nil {
		t.Errorf("the tree's own files: %v", err)
	}
}

// fakeGuided is a fake of the schema build's guided sweeps: with mutant 7
// on, the loop's run 5 (vk-swarm) finds UNEXPLAINED VK3 and VC VK3, run 2
// VC VK3; with no mutant on, the same inputs find VC VK3 only. Mutant 8's
// runs are the unmutated ones. With mutant 10 on the binary panics, with
// 11 a run hangs, with 12 a synctest deadlock ends it; with 13 the sweep
// fails for a reason of realrun's own (its run list unreadable); with 14
// it panics in a guided run on which the unmutated build panics too.
type fakeGuided struct {
	mu     sync.Mutex
	asked  []string
	cancel func() // if set, called by mutant 8's sweep: an interrupt
}

func (f *fakeGuided) sweep(sd side, t tier, file string) (map[runKey][]string, error) {
	f.mu.Lock()
	f.asked = append(f.asked, fmt.Sprintf("%s %s seeds=%d corpus=%v inputs=%s", strings.Join(sd.env, ","), t.Name, t.Seeds,
		t.Corpus != "", filepath.Base(t.Inputs)))
	f.mu.Unlock()
	if f.cancel != nil && slices.Contains(sd.env, "PODSIM_MUTANT=8") {
		f.cancel()
		return nil, errors.New("signal: interrupt")
	}
	r2, r5 := runKey{Family: "vk-swarm", Seed: 2, Input: "g1:b"}, runKey{Family: "vk-swarm", Seed: 5, Input: "g1:e"}
	last := "gate: 4 of 40 runs, 1 with findings (last: vk-swarm plain run 3)"
	switch {
	case slices.Contains(sd.env, "PODSIM_MUTANT=7"):
		return map[runKey][]string{r2: {"VC VK3"}, r5: {"UNEXPLAINED VK3", "VC VK3"}}, nil
	case slices.Contains(sd.env, "PODSIM_MUTANT=10"):
		return nil, &toolrun.Died{Side: "s", Out: toolrun.Outcome{Last: "gate: run vk-swarm plain run 4 input g1:x", Tail: []string{"panic: Internally inconsistent state"}, Err: errFailed}}
	case slices.Contains(sd.env, "PODSIM_MUTANT=11"):
		return nil, &toolrun.Died{Side: "s", Out: toolrun.Outcome{Last: last, Hung: true, Err: errFailed}, Hang: time.Second}
	case slices.Contains(sd.env, "PODSIM_MUTANT=12"):
		return nil, &toolrun.Died{Side: "s", Out: toolrun.Outcome{Last: last, Tail: []string{"panic: " + synctestDeadlockLine}, Err: errFailed}}
	case slices.Contains(sd.env, "PODSIM_MUTANT=13"):
		return nil, fmt.Errorf("%s: unexpected end of JSON input", file)
	case slices.Contains(sd.env, "PODSIM_MUTANT=14"), strings.Contains(t.Inputs, "/14/died-input.json"):
		return nil, &toolrun.Died{Side: "s", Out: toolrun.Outcome{Last: "gate: run vk-swarm plain run 9 input g1:y", Tail: []string{"panic: boom"}, Err: errFailed}}
	}
	return map[runKey][]string{r2: {"VC VK3"}, r5: {"VC VK3"}}, nil
}

// TestGuidedPassJudgesEachInput: a survivor whose guided run has a key
// the unmutated run of the same input lacks is killed-guided, named by
// that run and its input; one without is still a survivor; a decided
// mutant is not run again. The mutant's loop runs from a copy of the
// corpus, the unmutated build reruns its inputs with no mutant on.
func TestGuidedPassJudgesEachInput(t *testing.T) {
	corpus := t.TempDir()
	os.WriteFile(guided.Path(corpus, "vk-swarm"), []byte("corpus\n"), 0o644)
	o, err := parse(strings.Fields("mutation --vk --scenario vk-swarm --guided 40 --corpus "+corpus), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var fake fakeGuided
	r := &mutationRun{o: o, t: target{vk: true}, outDir: t.TempDir(), sweep: fake.sweep}
	ms := []mutreport.Mutant{{Mutant: mutation.Mutant{Index: 7}, Status: mutreport.Survived}, {Mutant: mutation.Mutant{Index: 8}, Status: mutreport.Survived, Runs: 80},
		{Mutant: mutation.Mutant{Index: 9}, Status: mutreport.Killed}}
	for i := 10; i <= 14; i++ {
		ms = append(ms, mutreport.Mutant{Mutant: mutation.Mutant{Index: i}, Status: mutreport.Survived})
	}
	r.guidedPass(context.Background(), ms)
	if m := ms[0]; m.Status != mutreport.Guided || m.Seed != 5 || m.Input != "g1:e" || !slices.Equal(m.Keys, []string{"UNEXPLAINED VK3"}) {
		t.Errorf("mutant 7: %+v; want killed-guided at run 5 (g1:e) with UNEXPLAINED VK3", m)
	}
	if ms[1].Status != mutreport.Survived || ms[2].Status != mutreport.Killed {
		t.Errorf("mutants 8, 9: %s, %s; want survived and killed as before", ms[1].Status, ms[2].Status)
	}
	if row := mutreport.OneLine(ms[1], false); !strings.Contains(row, "80 runs, 0 traces changed; guided: 40 runs, 2 with findings, none new;") {
		t.Errorf("a survivor of the guided pass: %q; want its guided runs counted", row)
	}
	if m := ms[3]; m.Input != "g1:x" || !strings.Contains(mutreport.OneLine(m, false), "plain vk-swarm run 4") {
		t.Errorf("a guided run that crashed: input %q, row %q; want the run and its input", m.Input, mutreport.OneLine(m, false))
	}
	if row := mutreport.OneLine(ms[6], false); !strings.Contains(row, "; guided pass: ") {
		t.Errorf("a survivor the guided pass could not judge: %q; want why", row)
	}
	for i, c := range []struct{ status, reason string }{
		{mutreport.Crash, "guided pass, mutant on: sweep on s did not complete (in vk-swarm plain run 4): panic: Internally inconsistent state"},
		{mutreport.Hang, "guided pass, mutant on: sweep on s: a run did not end within 1s (the run after vk-swarm plain run 3)"},
		{mutreport.Hang, "guided pass, mutant on: sweep on s did not complete (the run after vk-swarm plain run 3): panic: " + synctestDeadlockLine},
		{mutreport.Survived, "guided pass: " + filepath.Join(r.outDir, "guided", "13", "mutant-runs.json") + ": unexpected end of JSON input"},
		{mutreport.Survived, "guided pass: the mutant's loop died (sweep on s did not complete (in vk-swarm plain run 9): panic: boom), " +
			"and the unmutated build dies on the same input too (sweep on s did not complete (in vk-swarm plain run 9): panic: boom)"},
	} {
		if m := ms[3+i]; m.Status != c.status || m.Reason != c.reason {
			t.Errorf("mutant %d: %s, %q\nwant %s, %q", m.Index, m.Status, m.Reason, c.status, c.reason)
		}
	}
	want := []string{"PODSIM_MUTANT=7 guided seeds=40 corpus=true inputs=.", "PODSIM_MUTANT= guided seeds=40 corpus=false inputs=mutant-runs.json",
		"PODSIM_MUTANT=8 guided seeds=40 corpus=true inputs=.", "PODSIM_MUTANT= guided seeds=40 corpus=false inputs=mutant-runs.json",
		"PODSIM_MUTANT=10 guided seeds=40 corpus=true inputs=.", "PODSIM_MUTANT= guided seeds=40 corpus=false inputs=died-input.json",
		"PODSIM_MUTANT=11 guided seeds=40 corpus=true inputs=.",
		"PODSIM_MUTANT=12 guided seeds=40 corpus=true inputs=.", "PODSIM_MUTANT=13 guided seeds=40 corpus=true inputs=.",
		"PODSIM_MUTANT=14 guided seeds=40 corpus=true inputs=.", "PODSIM_MUTANT= guided seeds=40 corpus=false inputs=died-input.json"}
	if !slices.Equal(fake.asked, want) {
		t.Errorf("sweeps %q\nwant %q", fake.asked, want)
	}
	if !mutreport.IsKill(mutreport.Guided) || !strings.Contains(mutreport.OneLine(ms[0], false), "plain vk-swarm run 5") {
		t.Errorf("a guided kill is no kill, or its row %q does not name its run", mutreport.OneLine(ms[0], false))
	}
}

// synctestDeadlockLine is synctest's message for a run whose goroutines
// all block for good (toolrun.Outcome.Deadlock looks for it).
const synctestDeadlockLine = "deadlock: all goroutines in bubble are blocked [recovered, repanicked]"

// TestGuidedPassInParallelAndInterrupted: --parallel 2 gives the same
// verdicts as one at a time, each appended to mutation.jsonl as it comes;
// an interrupt leaves the mutant in flight a survivor that says so, and
// starts no other.
func TestGuidedPassInParallelAndInterrupted(t *testing.T) {
	survivors := func() []mutreport.Mutant {
		var ms []mutreport.Mutant
		for _, i := range []int{7, 8, 10, 11, 12} {
			ms = append(ms, mutreport.Mutant{Mutant: mutation.Mutant{Index: i}, Status: mutreport.Survived})
		}
		return ms
	}
	verdicts := func(parallel int) ([]string, string) {
		o, err := parse(strings.Fields(fmt.Sprintf("mutation --vk --scenario vk-swarm --guided 40 --parallel %d", parallel)), io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		var fake fakeGuided
		r := &mutationRun{o: o, t: target{vk: true}, outDir: t.TempDir(), sweep: fake.sweep}
		ms := survivors()
		r.guidedPass(context.Background(), ms)
		var out []string
		for _, m := range ms {
			out = append(out, m.Status+" "+m.Reason)
		}
		b, _ := os.ReadFile(filepath.Join(r.outDir, "mutation.jsonl"))
		return out, string(b)
	}
	one, _ := verdicts(1)
	two, log := verdicts(2)
	if !slices.Equal(one, two) || strings.Count(log, "\n") != 5 || !strings.Contains(log, `"status":"killed-guided"`) {
		t.Errorf("parallel 2: %q\nparallel 1: %q\nlog %s", two, one, log)
	}
	ctx, cancel := context.WithCancel(context.Background())
	o, _ := parse(strings.Fields("mutation --vk --scenario vk-swarm --guided 40"), io.Discard)
	fake := fakeGuided{cancel: cancel}
	r := &mutationRun{o: o, t: target{vk: true}, outDir: t.TempDir(), sweep: fake.sweep}
	ms := survivors()
	r.guidedPass(ctx, ms)
	if ms[0].Status != mutreport.Guided || ms[1].Status != mutreport.Survived || ms[1].Reason != "guided pass: interrupted" {
		t.Errorf("mutants 7, 8: %s, %s %q; want killed-guided, then a survivor the interrupt cut short", ms[0].Status, ms[1].Status, ms[1].Reason)
	}
	for _, m := range ms[2:] {
		if m.Status != mutreport.Survived || m.Reason != "" {
			t.Errorf("mutant %d ran after the interrupt: %s %q", m.Index, m.Status, m.Reason)
		}
	}
}

// TestVerdictOfGoneKeys: a survivor whose runs lost some of the base's
// finding keys says which, and in how many runs, in its row and in the
// summary's count; one that lost none says nothing of it.
func TestVerdictOfGoneKeys(t *testing.T) {
	file := filepath.Join(t.TempDir(), "v.json")
	if err := os.WriteFile(file, []byte(`{"killed":false,"runs":40,"traces_changed":0,"gone_keys":["GJ P7"],"runs_with_gone_keys":40}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var m mutreport.Mutant
	if err := verdictOf(file, &m); err != nil || m.Status != mutreport.Survived {
		t.Fatalf("verdict: %+v, %v", m, err)
	}
	if row := mutreport.OneLine(m, false); !strings.Contains(row, "40 runs, 0 traces changed; GJ P7 gone in 40;") {
		t.Errorf("row %q, want the gone key and its runs", row)
	}
	var out strings.Builder
	mutreport.Print(&out, mutreport.Report{Mutants: []mutreport.Mutant{m, {Status: mutreport.Survived, Runs: 40}}}, "30s")
	if !strings.Contains(out.String(), "(0 changed some run's trace, 2 none; 1 took a finding away)") {
		t.Errorf("summary %q, want one survivor that took a finding away", out.String())
	}
}

// TestReportListsTracedSurvivors: the survivors that changed a trace are
// listed apart, the most traces first; a kill and a survivor that changed
// none are not.
func TestReportListsTracedSurvivors(t *testing.T) {
	op := mutation.Operators()[0]
	rep := mutreport.Report{Mutants: []mutreport.Mutant{
		{Mutant: mutation.Mutant{Index: 1, Operator: op}, Status: mutreport.Killed, Keys: []string{"UNEXPLAINED P7"}},
		{Mutant: mutation.Mutant{Index: 2, Operator: op}, Status: mutreport.Survived, Runs: 40, Traced: 5},
		{Mutant: mutation.Mutant{Index: 3, Operator: op}, Status: mutreport.Survived, Runs: 40},
		{Mutant: mutation.Mutant{Index: 4, Operator: op}, Status: mutreport.Survived, Runs: 40, Traced: 40}}}
	var out strings.Builder
	mutreport.Print(&out, rep, "30s")
	_, list, ok := strings.Cut(out.String(), "survivors that changed some run's trace, the most first")
	if !ok {
		t.Fatalf("no list of traced survivors:\n%s", out.String())
	}
	list, _, _ = strings.Cut(list, "\n\n")
	i40, i5 := strings.Index(list, "40 traces changed"), strings.Index(list, " 5 traces changed")
	if i40 < 0 || i5 < 0 || i40 > i5 || strings.Count(list, "\n  ") != 2 {
		t.Fatalf("list %q, want two rows: mutant 4 (40 traces) before mutant 2 (5)", list)
	}
}
