package run

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/podsim/podsim/sim"
	"github.com/podsim/podsim/vkworld"
)

// TestMeasureVKFaultPointsPerMutant prints, for every VK mutant and each of
// its families, what each fault point does where it fires: among the armed
// runs (seeds 0 to PODSIM_VKFP_SEEDS-1, random walk) where the point fired,
// how many caught the mutant, and how many caught it in the same run with
// that point's choice set to 0 (off; every other choice kept). Skipped
// unless PODSIM_VKFP_MEASURE is set.
func TestMeasureVKFaultPointsPerMutant(t *testing.T) {
	if os.Getenv("PODSIM_VKFP_MEASURE") == "" {
		t.Skip("PODSIM_VKFP_MEASURE not set")
	}
	seeds := uint64(3000)
	if v := os.Getenv("PODSIM_VKFP_SEEDS"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("PODSIM_VKFP_SEEDS=%q: %v", v, err)
		}
		seeds = n
	}
	var names []string
	for _, p := range vkworld.FaultPoints() {
		names = append(names, p.String())
	}
	fmt.Printf("| mutant | family | %s |\n|---|---|%s\n", strings.Join(names, " | "), strings.Repeat("---|", len(names)))
	for _, m := range vkworld.Mutants() {
		for _, fam := range m.Families {
			row := append([]string{m.Name, fam}, measurePoints(t, fam, m.Name, seeds)...)
			fmt.Printf("| %s |\n", strings.Join(row, " | "))
		}
	}
}

// measurePoints is one row of TestMeasureVKFaultPointsPerMutant: per point,
// "caught on / caught off of fired".
func measurePoints(t *testing.T, family, mutant string, seeds uint64) []string {
	opts := CheckOptions{FaultPoints: true, Mutant: mutant}
	fired, on, off := map[string]int{}, map[string]int{}, map[string]int{}
	for seed := range seeds {
		c, _ := RecordSeed(vkFamily(t, family), seed, sim.RandomWalk{}, opts)
		rp := ReplayCase(c, sim.RandomWalk{}, opts)
		for i, p := range vkworld.ApplicablePoints(c.Plan) {
			if !slices.Contains(rp.FaultPoints, p.String()) || !strings.Contains(rp.Trace, "faultpoint/"+p.String()+"/") {
				continue
			}
			fired[p.String()]++
			if rp.Failed() {
				on[p.String()]++
			}
			without := c.Clone()
			without.Faults[i] = 0
			if RunCase(without, sim.RandomWalk{}, opts).Failed() {
				off[p.String()]++
			}
		}
	}
	var cells []string
	for _, p := range vkworld.FaultPoints() {
		cell := "–"
		if n := fired[p.String()]; n > 0 {
			cell = fmt.Sprintf("%d / %d of %d", on[p.String()], off[p.String()], n)
		}
		cells = append(cells, cell)
	}
	return cells
}
