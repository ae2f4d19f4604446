package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/podsim/podsim/internal/mutation"
	"github.com/podsim/podsim/realdriver"
	"github.com/podsim/podsim/realkubelet/cmd/realrun/mutreport"
	"github.com/podsim/podsim/realkubelet/cmd/realrun/toolrun"
)

// realrun mutation: operator mutation of the real pod_workers.go (or of
// the files --files names, mutation_files.go). Every mutant
// internal/mutation finds in the target's files (logging statements left
// out) is written into their schema files, each behind a guard of its own
// (mutation.SchemaOptions.Local: the guards live in a generated file of
// each mutated package, which cannot import podsim), in
// a mirror of the tree in the scratch slot "mutation"; the realkubelet
// tool tests are built once against it. The unmutated tree's runs are the
// base (TestMutantSweep -mutant.record); the schema build with no mutant
// on must make the very same runs (trace digests and finding keys), or
// nothing is measured. Then each mutant is one run of the schema binary
// with PODSIM_MUTANT=N, stopped at its first run with a finding key the
// base run lacks (the gate's regression).

// logCall is a statement that only logs: removing it is equivalent by
// construction (nothing reads a log), so its mutants are not made. The
// logger may be a field (the node shutdown manager's m.logger; left in
// scope before session 40).
var logCall = regexp.MustCompile(`^(klog|(\w+\.)?\w*[lL]ogger)\.(V\(\d+\)\.)?(Info|Error|Warning)\w*\(`)

// findRealMutants lists the mutants of the tree's pod_workers.go, logging
// statements left out, numbered as Find numbers them.
func findRealMutants(src []byte) (in []mutation.Mutant, logging int, err error) {
	in, logging, _, err = findMutants("pkg/kubelet/pod_workers.go", src, logCall)
	return in, logging, err
}

// findMutants lists Find's mutants of a file less the removals of
// statements logCall matches (all counts Find's, those included).
func findMutants(file string, src []byte, logCall *regexp.Regexp) (in []mutation.Mutant, logging, all int, err error) {
	ms, err := mutation.Find(file, src)
	if err != nil {
		return nil, 0, 0, err
	}
	for _, m := range ms {
		if m.Operator == mutation.Remove && logCall.MatchString(m.Old) {
			logging++
			continue
		}
		in = append(in, m)
	}
	return in, logging, len(ms), nil
}

func checkMutation(o options) error {
	if o.seeds <= 0 {
		return fmt.Errorf("--seeds must be positive, got %d", o.seeds)
	}
	for _, m := range strings.Split(o.modes, ",") {
		if m != "plain" && m != "hold" {
			return fmt.Errorf("--modes: unknown mode %q (want plain, hold or plain,hold)", m)
		}
	}
	if o.parallel < 1 {
		return fmt.Errorf("--parallel must be at least 1, got %d", o.parallel)
	}
	if o.hang <= 0 {
		return fmt.Errorf("--hang must be positive, got %s", o.hang)
	}
	if _, _, err := parseIDs(o.ids); err != nil {
		return err
	}
	if err := checkGuided(o); err != nil {
		return err
	}
	return checkFilesFlag(o.files)
}

// mutationRun is one `realrun mutation`.
type mutationRun struct {
	o      options
	t      target
	outDir string
	base   string // the base runs (-mutant.record of the unmutated tree)
	sd     side   // the schema build
	// sweep runs a gate tier on a side (side.sweep; the tests give fakes):
	// the guided pass's (mutation_guided.go).
	sweep func(sd side, t tier, file string) (map[runKey][]string, error)
}

// runMutation is `realrun mutation`.
func runMutation(o options, moduleDir, root string) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	t, err := mutationTarget(o, moduleDir)
	if err != nil {
		return err
	}
	if err := checkKeys(t, o.ids); err != nil {
		return err
	}
	report := "mutation-report"
	if t.vk {
		report = "vk-mutation-report"
	}
	r := &mutationRun{o: o, t: t, outDir: cmp.Or(o.out, filepath.Join(root, report))}
	r.sweep = func(sd side, t tier, file string) (map[runKey][]string, error) {
		return sd.sweep(ctx, t, r.t.moduleDir, file, r.o.hang)
	}
	if err := os.MkdirAll(filepath.Join(r.outDir, "verdicts"), 0o755); err != nil {
		return err
	}
	t0 := time.Now()
	s, err := t.prepare(root, slotName(t.user), t.user)
	if err != nil {
		return err
	}
	bin, err := t.ready(s, o.trimpath)
	if err != nil {
		return err
	}
	progress("built %s (%s) in %.0fs", s.Name(), s.Layout, time.Since(t0).Seconds())
	if hint := logindHint(o, t.files, s.Tags); hint != "" {
		progress("%s", hint)
	}
	r.base = filepath.Join(r.outDir, "base-runs.tsv")
	if err := r.record(side{slot: s, bin: bin}, r.base, s.Name()); err != nil {
		return err
	}
	ms, refused, logging, err := r.buildSchema(root)
	if err != nil {
		return err
	}
	if err := r.checkOff(); err != nil {
		return err
	}
	nums, keys, _ := parseIDs(o.ids)
	picked, err := chosen(ms, nums, keys)
	if err != nil {
		return err
	}
	var todo []mutreport.Mutant
	for _, m := range picked {
		todo = append(todo, mutreport.Mutant{Mutant: m})
	}
	for i := range todo {
		if why, ok := refused[todo[i].Index]; ok {
			todo[i].Status, todo[i].Reason = mutreport.Refused, why
		}
	}
	done := r.sweepMutants(ctx, todo)
	if o.guided > 0 {
		r.guidedPass(ctx, done)
	}
	if err := r.report(done, len(ms)+logging, logging, ctx.Err() != nil); err != nil {
		return err
	}
	if ctx.Err() != nil {
		progress("interrupted: %d of %d mutants decided, kept in %s", len(done), len(todo), r.outDir)
		return errFailed
	}
	return nil
}

// record runs TestMutantSweep -mutant.record on a side, no mutant on.
func (r *mutationRun) record(sd side, file, name string) error {
	t0 := time.Now()
	cmd := exec.Command(sd.bin, append(r.sweepArgs(), "-mutant.record", file)...)
	cmd.Dir, cmd.Env = r.t.moduleDir, append(sd.slot.GoEnv(), "PODSIM_MUTANT=")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("the sweep with no mutant on did not complete on %s: %s", name, toolrun.FirstLines(out, 3))
	}
	progress("recorded %s's runs with no mutant on in %.0fs: %s", name, time.Since(t0).Seconds(), file)
	return nil
}

// sweepArgs are TestMutantSweep's budget flags.
func (r *mutationRun) sweepArgs() []string {
	args := []string{"-test.run", "^TestMutantSweep$", "-test.timeout", "0", "-sweep", strconv.Itoa(r.o.seeds),
		"-sweep.start", strconv.FormatUint(r.o.start, 10)}
	if !r.t.vk {
		args = append(args, "-gate.modes", r.o.modes)
	}
	args = append(args, r.o.faultTestFlags()...)
	if r.o.scenario != "all" {
		args = append(args, "-sweep.family", r.o.scenario)
	}
	return args
}

// checkOff: the schema build with no mutant on makes the base's runs, the
// same trace digests and finding keys, or no verdict would mean anything.
func (r *mutationRun) checkOff() error {
	off := filepath.Join(r.outDir, "schema-off-runs.tsv")
	if err := r.record(r.sd, off, "the schema build"); err != nil {
		return err
	}
	a, errA := os.ReadFile(r.base)
	b, errB := os.ReadFile(off)
	if err := cmp.Or(errA, errB); err != nil {
		return err
	}
	if !bytes.Equal(a, b) {
		al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
		for i := range min(len(al), len(bl)) {
			if al[i] != bl[i] {
				return fmt.Errorf("the schema build with no mutant on behaves unlike the unmutated tree: base %q, schema %q", al[i], bl[i])
			}
		}
		return fmt.Errorf("the schema build with no mutant on made %d runs, the unmutated tree %d", len(bl), len(al))
	}
	progress("no mutant on: the schema build makes the base's %d runs (same trace digests and finding keys)", bytes.Count(a, []byte("\n")))
	return nil
}

// buildSchema mirrors the target's tree into the slot "mutation", writes
// the schema of its files and the guards' file, and builds the tool tests
// against it; a mutant whose guard the compiler refuses is dropped (its
// lines named in the error) and the build tried again.
func (r *mutationRun) buildSchema(root string) ([]mutation.Mutant, map[int]string, int, error) {
	t0 := time.Now()
	s, err := r.t.prepare(root, "mutation", r.t.source)
	if err != nil {
		return nil, nil, 0, err
	}
	tree := s.Tree()
	srcs, err := r.t.read(tree)
	if err != nil {
		return nil, nil, 0, err
	}
	ms, logging, err := r.t.findMutants(srcs)
	if err != nil {
		return nil, nil, 0, err
	}
	if err := mutation.WriteGuards(tree, srcs, r.t.files); err != nil {
		return nil, nil, 0, fmt.Errorf("--files: %v", err)
	}
	refused := map[int]string{}
	for round := 0; ; round++ {
		var live []mutation.Mutant
		for _, m := range ms {
			if _, gone := refused[m.Index]; !gone {
				live = append(live, m)
			}
		}
		if err := mutation.WriteSchemas(tree, srcs, r.t.files, live); err != nil {
			return nil, nil, 0, err
		}
		bin, out, err := s.BuildFull(r.t.moduleDir)
		if err == nil {
			r.sd = side{slot: s, bin: bin}
			break
		}
		if round == 30 || mutation.Refuse(out, live, refused) == 0 {
			return nil, nil, 0, fmt.Errorf("the schema build failed and named no mutant: %s", toolrun.FirstLines(out, 5))
		}
	}
	if !r.t.vk {
		if err := s.Guard(r.sd.bin, r.t.moduleDir); err != nil {
			return nil, nil, 0, err
		}
	}
	progress("schema build of %s in %s: %d mutants (%d logging statements left out, %d refused by the compiler) in %.0fs",
		r.t.label(), tree, len(ms), logging, len(refused), time.Since(t0).Seconds())
	return ms, refused, logging, nil
}

// verdictOf reads TestMutantSweep's verdict into m.
func verdictOf(file string, m *mutreport.Mutant) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	var v realdriver.MutantVerdict
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("%s: %v", file, err)
	}
	m.Status = mutreport.Survived
	if v.Killed {
		m.Status, m.Family, m.Seed, m.Mode, m.Keys = mutreport.Killed, v.Family, v.Seed, v.Mode, v.Keys
	}
	m.Runs, m.Traced, m.FirstTraced, m.Gone, m.GoneRuns = v.Runs, v.Traced, v.FirstTraced, v.Gone, v.GoneRuns
	return nil
}
