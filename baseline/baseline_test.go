package baseline

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/podsim/podsim/gate"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/run"
)

// sideResult is one side's tally for one mutant within the wall budget.
type sideResult struct {
	Runs, Failed int
	FirstAt      time.Duration // wall time to the first failure; 0 if none
	First        string
}

func (r sideResult) String() string {
	ttd := "-"
	if r.Failed > 0 {
		ttd = r.FirstAt.Round(time.Millisecond).String()
	}
	return fmt.Sprintf("%d/%d (%.1f%%)\t%s", r.Failed, r.Runs, 100*float64(r.Failed)/float64(max(r.Runs, 1)), ttd)
}

// pctTally feeds the PCT residual-miss bound: the pct runs made and the
// largest n (goroutines) and k (scheduling points) seen.
type pctTally struct {
	Runs     int
	N, Steps int64
}

// simSide runs the mutant's gate runs (seed by seed, every family, random
// and pct) for the budget, on one core.
func simSide(m run.Mutant, budget time.Duration, pct *pctTally) sideResult {
	var r sideResult
	began := time.Now()
	for seed := uint64(0); time.Since(began) < budget; seed++ {
		for _, run := range gate.RunsFor(m, seed, 1) {
			res, pl := gate.RunOne(run, m.Name)
			r.Runs++
			if run.Strategy == "pct" {
				pct.Runs++
				pct.N = max(pct.N, int64(max(pl.Clients, 1)+3+len(planUIDs(pl))))
				pct.Steps = max(pct.Steps, res.Steps)
			}
			if res.Failed() {
				r.Failed++
				if r.FirstAt == 0 {
					r.FirstAt, r.First = time.Since(began), fmt.Sprintf("%s/%s seed %d", run.Family, run.Strategy, run.Seed)
				}
			}
		}
	}
	return r
}

func planUIDs(p plan.Plan) map[string]bool {
	out := map[string]bool{}
	for _, a := range p.Actions {
		if a.UID != "" {
			out[string(a.UID)] = true
		}
	}
	return out
}

// realSide runs the same families' plans on the real runtime for the
// budget, iteration after iteration (each uses several real goroutines).
func realSide(t *testing.T, m run.Mutant, budget time.Duration) sideResult {
	var r sideResult
	began := time.Now()
	for i := uint64(0); time.Since(began) < budget; i++ {
		fam, _ := plan.FamilyNamed(m.Families[i%uint64(len(m.Families))])
		seed := i / uint64(len(m.Families))
		w, err := newBaseWorld(fam.Generate(plan.SeedStreams(seed).Plan), seed, m.Name)
		if err != nil {
			t.Fatal(err)
		}
		r.Runs++
		if failure := w.run(); failure != "" {
			r.Failed++
			if r.FirstAt == 0 {
				r.FirstAt, r.First = time.Since(began), fmt.Sprintf("%s seed %d: %s", fam.Name, seed, failure)
			}
		}
	}
	return r
}

// TestBaselineSideBySide is issue 7's comparison (README, "Regression
// gate"): per mutant, the same wall-clock budget for podsim (simulated
// scheduler, every oracle) and for the upstream way (real runtime,
// random sleeps, -race, many iterations). Not part of make test. make
// baseline runs it in two steps, so that only the baseline pays for -race
// (podsim's runs cannot race: one goroutine runs at a time):
//
//	PODSIM_BASELINE=10s PODSIM_BASELINE_SIDE=sim PODSIM_BASELINE_FILE=/tmp/sim.json \
//	    go test -run TestBaselineSideBySide -count=1 -v -timeout 0 ./baseline
//	PODSIM_BASELINE=10s PODSIM_BASELINE_SIDE=real PODSIM_BASELINE_FILE=/tmp/sim.json \
//	    go test -race -run TestBaselineSideBySide -count=1 -v -timeout 0 ./baseline
//
// Without PODSIM_BASELINE_SIDE both sides run in one process.
// PODSIM_BASELINE_MUTANTS=B1,B2 restricts it to some mutants (",B1" adds
// the correct code, baselineMutants).
func TestBaselineSideBySide(t *testing.T) {
	budget, err := time.ParseDuration(os.Getenv("PODSIM_BASELINE"))
	if err != nil {
		t.Skip("set PODSIM_BASELINE to the wall budget per mutant and side, e.g. 10s")
	}
	selected, err := baselineMutants(os.Getenv("PODSIM_BASELINE_MUTANTS"))
	if err != nil {
		t.Fatal(err)
	}
	side, file := os.Getenv("PODSIM_BASELINE_SIDE"), os.Getenv("PODSIM_BASELINE_FILE")
	var sims simTally
	if side == "real" {
		sims = readSimTally(t, file)
	} else {
		sims = simTally{Results: map[string]sideResult{}}
		for _, m := range selected {
			sims.Results[m.Name] = simSide(m, budget, &sims.PCT)
		}
	}
	if side == "sim" {
		writeSimTally(t, file, sims)
		return
	}
	var out strings.Builder
	tw := tabwriter.NewWriter(&out, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "mutant\tpodsim failed/runs\tpodsim time to detect\tbaseline failed/runs\tbaseline time to detect\trate ratio\tspeed-up\n")
	var firsts []string
	for _, m := range selected {
		sim, real := sims.Results[m.Name], realSide(t, m, budget)
		name := m.Name
		if name == "" {
			name = "(correct code)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", name, sim, real, ratio(sim, real, false), ratio(sim, real, true))
		t.Logf("%s: podsim %s | baseline %s", name, sim, real) // as it ends: a later stop keeps it
		firsts = append(firsts, fmt.Sprintf("%s: podsim %s | baseline %s", name, orDash(sim.First), orDash(real.First)))
	}
	tw.Flush()
	fmt.Fprintf(&out, "budget %v per mutant and side; podsim on one core, baseline one iteration at a time\n", budget)
	fmt.Fprintf(&out, "%s\n", pctBound(sims.PCT))
	t.Logf("\n%s\n%s", out.String(), strings.Join(firsts, "\n"))
}

// correctCode is the baseline's row for the code with no mutant: every
// family.
func correctCode() run.Mutant { return run.Mutant{Name: "", Kind: "none", Families: familyNames()} }

// baselineMutants parses PODSIM_BASELINE_MUTANTS: a comma-separated list
// of mutant names, where an empty name is the correct code (",B4,B5" is
// the correct code, B4 and B5); unset or empty: the correct code and
// every mutant of the kubelet's target. The baseline runs the kubelet's
// pod workers only, so a virtual-kubelet mutant is refused by name and
// left out of the default, before any run: the real side used to reach
// vk/V1 after seven minutes and stop with every finished row unprinted.
func baselineMutants(list string) ([]run.Mutant, error) {
	if list == "" {
		out := []run.Mutant{correctCode()}
		for _, m := range run.Mutants() {
			if m.Kind != run.KindVK {
				out = append(out, m)
			}
		}
		return out, nil
	}
	var out []run.Mutant
	for _, name := range strings.Split(list, ",") {
		m, ok := correctCode(), true
		if name = strings.TrimSpace(name); name != "" {
			m, ok = run.MutantNamed(name)
		}
		switch {
		case !ok:
			return nil, &run.UnknownMutantError{Name: name}
		case m.Kind == run.KindVK:
			return nil, fmt.Errorf("mutant %s is virtual-kubelet's: the baseline runs the kubelet's pod workers only", name)
		}
		out = append(out, m)
	}
	return out, nil
}

// simTally is the podsim side, handed from the -race-free step to the
// baseline step.
type simTally struct {
	Results map[string]sideResult
	PCT     pctTally
}

func writeSimTally(t *testing.T, file string, s simTally) {
	data, err := json.Marshal(s)
	if err == nil {
		err = os.WriteFile(file, data, 0o644)
	}
	if err != nil {
		t.Fatalf("PODSIM_BASELINE_FILE: %v", err)
	}
}

func readSimTally(t *testing.T, file string) simTally {
	var s simTally
	data, err := os.ReadFile(file)
	if err == nil {
		err = json.Unmarshal(data, &s)
	}
	if err != nil {
		t.Fatalf("PODSIM_BASELINE_FILE (run the sim side first): %v", err)
	}
	return s
}

func familyNames() []string {
	var out []string
	for _, f := range plan.Families() {
		out = append(out, f.Name)
	}
	return out
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// ratio is podsim's detection rate over the baseline's, or (speed) the
// baseline's time to detect over podsim's; "inf" when only podsim detects.
func ratio(sim, real sideResult, speed bool) string {
	switch {
	case sim.Failed == 0:
		return "-"
	case real.Failed == 0:
		return "inf"
	case speed:
		return fmt.Sprintf("%.1fx", real.FirstAt.Seconds()/sim.FirstAt.Seconds())
	}
	simRate := float64(sim.Failed) / float64(sim.Runs)
	realRate := float64(real.Failed) / float64(real.Runs)
	return fmt.Sprintf("%.1fx", simRate/realRate)
}

// pctBound is PCT's guarantee for the pct runs made: with n goroutines and
// k scheduling points, one run finds a given depth-d bug with probability
// at least 1/(n·k^(d−1)), so all of them miss it with probability at most
// (1 − 1/(n·k^(d−1)))^runs.
func pctBound(p pctTally) string {
	var parts []string
	for _, d := range []int{1, 2, 3} {
		perRun := 1 / (float64(p.N) * math.Pow(float64(p.Steps), float64(d-1)))
		parts = append(parts, fmt.Sprintf("d=%d: %.3g", d, math.Pow(1-perRun, float64(p.Runs))))
	}
	return fmt.Sprintf("PCT residual-miss bound over %d pct runs (n≤%d goroutines, k≤%d steps): %s",
		p.Runs, p.N, p.Steps, strings.Join(parts, ", "))
}
