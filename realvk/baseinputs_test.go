package realvk

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/podsim/podsim/guided"
	"github.com/podsim/podsim/plan"
)

var (
	sweepInputs = flag.String("sweep.inputs", "", "TestSweep -sweep.strategy guided: write every run with a finding to this file "+
		"(family, run, input token, finding keys), for TestBaseInputs on another build")
	baseInputs = flag.String("base.inputs", "", "TestBaseInputs: a -sweep.inputs file whose inputs to run on this build")
)

// openInputs is the -sweep.inputs file, nil without the flag; it is
// closed when t ends.
func openInputs(t *testing.T) io.Writer {
	if *sweepInputs == "" {
		return nil
	}
	f, err := os.Create(*sweepInputs)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := f.Close(); err != nil {
			t.Error(err)
		}
	})
	return f
}

// TestBaseInputs is the differential judgement of a guided sweep of a
// mutant: the inputs of its runs with findings (-sweep.inputs, written
// by the mutant's build) run again on this build, the base, and a run
// whose finding keys (CLASS/CHECK) include one the base's run of the same
// input lacks is the mutant's catch, as realdriver.MutantSweep judges a
// seed. It logs each catch and, per family, the first run caught. Random
// seeds have their base in a sweep of the same seeds; a guided run's
// input exists only in the mutant's loop, hence this test.
func TestBaseInputs(t *testing.T) {
	if *baseInputs == "" {
		t.Skip("run with -base.inputs FILE")
	}
	f, err := os.Open(*baseInputs)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	first := map[string]uint64{}
	var order []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for line := 1; sc.Scan(); line++ {
		fam, run, in, keys, err := parseInputLine(sc.Text())
		if err != nil {
			t.Fatalf("%s:%d: %v", *baseInputs, line, err)
		}
		base := classesOf(runInput(t, fam, in))
		var lacks []string
		for _, k := range keys {
			if !slices.Contains(base, k) {
				lacks = append(lacks, k)
			}
		}
		if len(lacks) == 0 {
			continue
		}
		t.Logf("%s run %d: the base lacks %s", fam.Name, run, strings.Join(lacks, ","))
		if _, ok := first[fam.Name]; !ok {
			first[fam.Name] = run
			order = append(order, fam.Name)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	for _, name := range order {
		t.Logf("%s: first run caught %d", name, first[name])
	}
	if len(order) == 0 {
		t.Logf("no run caught")
	}
}

// parseInputLine reads a -sweep.inputs line: family, run, token, keys.
func parseInputLine(s string) (plan.Family, uint64, guided.Input, []string, error) {
	parts := strings.Fields(s)
	if len(parts) != 4 {
		return plan.Family{}, 0, guided.Input{}, nil, fmt.Errorf("want family, run, input and keys, got %q", s)
	}
	i := slices.IndexFunc(plan.VKFamilies(), func(f plan.Family) bool { return f.Name == parts[0] })
	if i < 0 {
		return plan.Family{}, 0, guided.Input{}, nil, fmt.Errorf("no VK family %q", parts[0])
	}
	fam := plan.VKFamilies()[i]
	run, err := strconv.ParseUint(parts[1], 10, 64)
	if err != nil {
		return plan.Family{}, 0, guided.Input{}, nil, fmt.Errorf("run %q: %v", parts[1], err)
	}
	in, err := guided.ParseToken(parts[2])
	if err != nil {
		return plan.Family{}, 0, guided.Input{}, nil, err
	}
	return fam, run, in, strings.Split(parts[3], ","), nil
}

// TestParseInputLine: a -sweep.inputs line reads back as written, and a
// malformed one is refused with its reason.
func TestParseInputLine(t *testing.T) {
	in := guided.SeedInput(7)
	fam, run, got, keys, err := parseInputLine("vk-swarm 12 " + in.Token() + " VC/VK3,VB/VK1")
	if err != nil || fam.Name != "vk-swarm" || run != 12 || got.Token() != in.Token() || !slices.Equal(keys, []string{"VC/VK3", "VB/VK1"}) {
		t.Fatalf("got %s %d %s %v %v", fam.Name, run, got.Token(), keys, err)
	}
	for _, bad := range []string{"", "vk-swarm 12 " + in.Token(), "swarm 12 " + in.Token() + " X/Y",
		"vk-swarm twelve " + in.Token() + " X/Y", "vk-swarm 12 nottoken X/Y"} {
		if _, _, _, _, err := parseInputLine(bad); err == nil {
			t.Errorf("%q: accepted", bad)
		}
	}
}
