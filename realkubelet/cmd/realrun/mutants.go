package main

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/podsim/podsim/realkubelet/cmd/realrun/toolrun"
)

// The catalogue on the real code: every realkubelet/testdata/mutants/*.diff
// is a unified diff against the release's pkg/kubelet/pod_workers.go,
// headed by "BUGS.md: <id>" and "upstream: <issue>" lines. gate --mutants
// applies each to one scratch copy of the base tree (the same path every
// time, so only pkg/kubelet recompiles), runs the differential gate against
// the base, and reports seeds-to-detection per wake-up mode.

// mutantRow is one mutant's outcome.
type mutantRow struct {
	Name     string           `json:"name"`
	Bug      string           `json:"bug"`
	Upstream string           `json:"upstream"`
	First    map[string]int64 `json:"first_detecting_seed"` // per mode; -1 = not caught
	Runs     map[string]int   `json:"regressed_runs"`       // per mode
	Expect   string           `json:"expect"`               // "regression", "fix CLASS" or "unreachable"
	Keys     []string         `json:"new_findings"`
	Gone     []string         `json:"gone_findings"`
	Fixed    map[string]int   `json:"fixed_runs"` // per mode
	Example  *change          `json:"example,omitempty"`
	Caught   bool             `json:"caught"`
	Died     string           `json:"died,omitempty"` // the patched tree's sweep died where the base's ended: caught
	Error    string           `json:"error,omitempty"`
	Seconds  float64          `json:"build_seconds"`
}

// expectUnreachable is a mutant's "expect:" when its patch changes code
// no caller of the pinned release can reach (its header says why): not
// caught, it is no miss; caught, it is a "yes" like any other.
const expectUnreachable = "unreachable"

// missed: a mutant not caught that its header does not expect unreachable
// (the command fails on one).
func missed(r mutantRow) bool { return !r.Caught && r.Expect != expectUnreachable }

// mutantHeader reads a mutant's BUGS.md id, upstream issue and expectation.
func mutantHeader(file string) (bug, upstream, expect string) {
	f, err := os.Open(file)
	if err != nil {
		return "?", "?", "regression"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() && !strings.HasPrefix(sc.Text(), "---") {
		line := strings.TrimSpace(strings.TrimPrefix(sc.Text(), "#"))
		if v, ok := strings.CutPrefix(line, "BUGS.md:"); ok {
			bug = strings.TrimSpace(v)
		}
		if v, ok := strings.CutPrefix(line, "VK.md:"); ok {
			bug = strings.TrimSpace(v)
		}
		if v, ok := strings.CutPrefix(line, "upstream:"); ok {
			upstream = strings.TrimSpace(v)
		}
		if v, ok := strings.CutPrefix(line, "expect:"); ok {
			expect = strings.TrimSpace(v)
		}
	}
	return cmp.Or(bug, "?"), cmp.Or(upstream, "?"), cmp.Or(expect, "regression")
}

// runMutants is gate --mutants: each patch of the target's catalogue
// (realkubelet/testdata/mutants, or with --vk realvk/testdata/mutants)
// applied to a mirror of the base tree and gated against the base.
func runMutants(o options, kubeletDir, root string) error {
	tg, err := mutationTarget(o, kubeletDir) // its source: the pin's tree
	if err != nil {
		return err
	}
	moduleDir := tg.moduleDir
	files, _ := filepath.Glob(filepath.Join(moduleDir, "testdata", "mutants", "*.diff"))
	if o.mutant != "" {
		files = slices.DeleteFunc(files, func(f string) bool { return strings.TrimSuffix(filepath.Base(f), ".diff") != o.mutant })
	}
	if len(files) == 0 {
		return fmt.Errorf("no mutant %q under %s", o.mutant, filepath.Join(moduleDir, "testdata", "mutants"))
	}
	// The base is built as given (the pinned release: realkubelet/go.mod);
	// mutants patch a mirror of its source.
	baseSrc, baseSlot, baseTree := o.base, "base", o.base
	if o.base == pinned || o.base == vkPinned {
		baseSrc, baseSlot, baseTree = tg.source, "pinned", ""
	}
	var secs float64
	base, err := buildSide(o, tg, root, baseSlot, baseTree, &secs)
	if err != nil {
		return err
	}
	outDir := cmp.Or(o.out, filepath.Join(root, "mutants-report"))
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return err
	}
	baseRuns, err := base.sweep(context.Background(), gateTiers(o)[0], moduleDir, filepath.Join(outDir, "base-runs.json"), o.hang)
	if err != nil {
		return err
	}
	var rows []mutantRow
	for _, file := range files {
		rows = append(rows, runMutant(o, tg, file, baseSrc, baseRuns, root, outDir))
	}
	b, _ := json.MarshalIndent(rows, "", "  ")
	if err := os.WriteFile(filepath.Join(outDir, "mutants.json"), b, 0o644); err != nil {
		return err
	}
	if o.json {
		fmt.Println(string(b))
	} else {
		printMutants(os.Stdout, o, rows)
	}
	if slices.ContainsFunc(rows, missed) {
		return errFailed
	}
	return nil
}

// pinnedTreeDir is the module cache's copy of the pinned release.
func pinnedTreeDir(moduleDir string) (string, error) {
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "k8s.io/kubernetes")
	cmd.Dir, cmd.Env = moduleDir, append(os.Environ(), "GOWORK=off")
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("cannot find the pinned kubernetes module: %v", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// runMutant patches a fresh mirror of the base tree, builds it and gates
// it against the base runs.
func runMutant(o options, tg target, file, baseSrc string, baseRuns map[runKey][]string, root, outDir string) mutantRow {
	name := strings.TrimSuffix(filepath.Base(file), ".diff")
	bug, upstream, expect := mutantHeader(file)
	row := mutantRow{Name: name, Bug: bug, Upstream: upstream, Expect: expect, First: map[string]int64{},
		Runs: map[string]int{}, Fixed: map[string]int{}}
	fail := func(err error) mutantRow { row.Error = err.Error(); progress("mutant %s: %v", name, err); return row }
	t0 := time.Now()
	s, err := tg.prepare(root, "candidate", baseSrc) // the candidate slot: its build cache is warm
	if err != nil {
		return fail(err)
	}
	s.Label = "mutant " + name
	patch := exec.Command("patch", "-p1", "-s", "--no-backup-if-mismatch", "-d", s.Tree(), "-i", file)
	if out, err := patch.CombinedOutput(); err != nil {
		return fail(fmt.Errorf("the patch does not apply: %s", toolrun.FirstLines(out, 2)))
	}
	bin, err := tg.ready(s, o.trimpath)
	row.Seconds = time.Since(t0).Seconds()
	if err != nil {
		return fail(err)
	}
	sd := side{slot: s, bin: bin}
	runs, err := sd.sweep(context.Background(), gateTiers(o)[0], tg.moduleDir, filepath.Join(outDir, name+"-runs.json"), o.hang)
	for _, m := range strings.Split(o.modes, ",") {
		row.First[m] = -1
	}
	// A reversed gap (expect: fix CLASS) is caught when the gate reports
	// CLASS gone; seeds-to-detection then counts those fixes.
	fixClass, isFix := strings.CutPrefix(expect, "fix ")
	var dead *toolrun.Died
	if errors.As(err, &dead) && !isFix {
		// Like the gate, a sweep that dies where the base's ended is
		// caught: in the seed its last beat names, when it names one.
		row.Died, row.Caught = err.Error(), true
		if r, ok := dead.Run(); ok && r.Input == "" {
			row.First[r.Mode], row.Runs[r.Mode] = int64(r.Index), 1
		}
		progress("mutant %s (%s): caught=true, its sweep died: %s", name, bug, row.Died)
		return row
	}
	if err != nil {
		return fail(err)
	}
	regs, fixes := diffRuns(baseRuns, runs)
	for _, c := range fixes {
		row.Fixed[c.Mode]++
		if !slices.Contains(row.Gone, c.Key) {
			row.Gone = append(row.Gone, c.Key)
		}
	}
	slices.Sort(row.Gone)
	detect := regs
	if isFix {
		detect = slices.DeleteFunc(slices.Clone(fixes), func(c change) bool { return !strings.HasPrefix(c.Key, fixClass+" ") })
	}
	for _, c := range detect {
		if f := row.First[c.Mode]; f < 0 || int64(c.Seed) < f {
			row.First[c.Mode] = int64(c.Seed)
		}
		row.Runs[c.Mode]++
	}
	for _, c := range regs {
		if !slices.Contains(row.Keys, c.Key) {
			row.Keys = append(row.Keys, c.Key)
		}
	}
	slices.Sort(row.Keys)
	row.Caught = len(detect) > 0
	if row.Caught && !isFix && o.shrink > 0 {
		first := slices.MinFunc(regs, func(a, b change) int { return cmp.Compare(a.Seed, b.Seed) })
		one := []change{first}
		shrinkChanges(one, 1, sd, tg, outDir)
		one[0].File = renameScript(one[0].File, name)
		vk := map[bool]string{true: "--vk "}[tg.vk]
		one[0].Reproduce = fmt.Sprintf("realrun gate %s--mutants --mutant %s (then: %s on the patched tree)", vk, name, reproduce(tg.vk, "", one[0], tg.faultFlags))
		row.Example = &one[0]
	}
	progress("mutant %s (%s): caught=%v first=%v runs=%v keys=%v (build %.0fs)", name, bug, row.Caught, row.First, row.Runs, row.Keys, row.Seconds)
	return row
}

// renameScript prefixes a shrunk script's file with the mutant's name.
func renameScript(file, name string) string {
	if file == "" {
		return ""
	}
	to := filepath.Join(filepath.Dir(file), name+"-"+filepath.Base(file))
	if os.Rename(file, to) != nil {
		return file
	}
	return to
}

// printMutants prints the mutant table and the seeds-to-detection summary.
func printMutants(w io.Writer, o options, rows []mutantRow) {
	modes := strings.Split(o.modes, ",")
	code := map[bool]string{false: "pod_workers.go", true: "virtual-kubelet pod controller"}[o.vk]
	fmt.Fprintf(w, "mutants of the real %s: %d families × seeds %d..%d, modes %s\n\n",
		code, len(scenarioNames(o)), o.start, o.start+uint64(o.seeds)-1, o.modes)
	fmt.Fprintf(w, "%-44s %-4s %-26s", "mutant", "bug", "upstream")
	for _, m := range modes {
		fmt.Fprintf(w, " %-16s", m+": first/runs")
	}
	fmt.Fprintf(w, " %-7s %s\n", "caught", "findings new / gone (reversed gaps: caught when their class is gone)")
	var firsts []int64
	caught, unreachable := 0, 0
	for _, r := range rows {
		bug, _, _ := strings.Cut(r.Bug, " ")
		fmt.Fprintf(w, "%-44s %-4s %-26s", r.Name, bug, r.Upstream)
		best := int64(-1)
		for _, m := range modes {
			cell := "-"
			if f := r.First[m]; f >= 0 {
				cell = fmt.Sprintf("%d/%d", f, r.Runs[m])
				if best < 0 || f < best {
					best = f
				}
			}
			fmt.Fprintf(w, " %-16s", cell)
		}
		verdict := "yes"
		switch {
		case !r.Caught && r.Expect == expectUnreachable:
			verdict = "n/a"
			unreachable++
		case !r.Caught:
			verdict = "NO"
		default:
			caught++
			firsts = append(firsts, best-int64(o.start)+1)
		}
		extra := "new: " + strings.Join(r.Keys, ", ")
		if len(r.Gone) > 0 {
			extra += "; gone: " + strings.Join(r.Gone, ", ")
		}
		if r.Died != "" {
			extra = "died: " + r.Died
		}
		if r.Error != "" {
			extra = "error: " + r.Error
		}
		fmt.Fprintf(w, " %-7s %s\n", verdict, extra)
	}
	slices.Sort(firsts)
	fmt.Fprintf(w, "\ncaught %d of %d", caught, len(rows)-unreachable)
	if unreachable > 0 {
		fmt.Fprintf(w, " (%d more, n/a, patch code the release's callers cannot reach: see its header)", unreachable)
	}
	if len(firsts) > 0 {
		fmt.Fprintf(w, "; seeds to detection (either mode, every family run to that seed): median %d, max %d",
			firsts[len(firsts)/2], firsts[len(firsts)-1])
	}
	fmt.Fprintln(w)
	for _, r := range rows {
		if r.Example != nil && r.Example.Script != "" {
			fmt.Fprintf(w, "\n--- %s: %s seed %d (%s), %s → %s\n%s\n", r.Name, r.Example.Family, r.Example.Seed,
				r.Example.Mode, r.Example.Key, r.Example.File, scriptOnly(r.Example.Script))
		}
	}
}
