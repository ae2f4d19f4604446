package guided

import (
	"fmt"
	"testing"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
)

// TestFloorBias: a floor-biased stream answers 0 about once in Bias draws
// past its choices (besides the tail's own zeros), never more often the
// top than a plain stream, and a token keeps the direction.
func TestFloorBias(t *testing.T) {
	count := func(s Stream) (zero, top int) {
		src := s.source()
		for i := 0; i < 4000; i++ {
			switch src.Intn(1000) {
			case 0:
				zero++
			case 999:
				top++
			}
		}
		return zero, top
	}
	floorZero, floorTop := count(Stream{Tail: 1, Seeded: true, Bias: 4, Floor: true})
	plainZero, _ := count(Stream{Tail: 1, Seeded: true})
	if floorZero < 800 || plainZero > 20 || floorTop > 20 {
		t.Fatalf("floor bias 4: %d zeros and %d tops of 4000; plain: %d zeros", floorZero, floorTop, plainZero)
	}
	in := Input{Plan: Stream{Tail: 3, Seeded: true, Bias: 2, Floor: true}, Faults: Stream{Tail: 4, Seeded: true, Bias: 16}}
	back, err := ParseToken(in.Token())
	if err != nil {
		t.Fatal(err)
	}
	if !back.Plan.Floor || back.Plan.Bias != 2 || back.Faults.Floor || back.Token() != in.Token() {
		t.Fatalf("round trip: %+v, want %+v", back, in)
	}
}

// TestFreshInputsAreSeedsOrTheirSwarms: a fresh input runs its seed's
// three tails; about one in planSwarmOneIn carries a plan bias (both
// directions occur), the others the seed's plan exactly; the fault bias
// is drawn as before.
func TestFreshInputsAreSeedsOrTheirSwarms(t *testing.T) {
	c := NewCorpus("swarm")
	swarmed, floors, n := 0, 0, 400
	for g := uint64(0); g < uint64(n); g++ {
		rng := sim.NewPCG(sim.Derive(5, fmt.Sprint("test", g)))
		in, fresh := next(rng, c, 5, g)
		seed := SeedInput(5 + g)
		if !fresh || in.Plan.Tail != seed.Plan.Tail || in.Schedule.Tail != seed.Schedule.Tail || in.Schedule.Bias != 0 || in.Faults.Tail != seed.Faults.Tail ||
			len(in.Plan.Choices)+len(in.Faults.Choices) != 0 || in.Faults.Floor {
			t.Fatalf("run %d: fresh=%v input %+v is not seed %d's streams", g, fresh, in, 5+g)
		}
		if in.Plan.Bias > 0 {
			swarmed++
			if in.Plan.Floor {
				floors++
			}
		} else if in.Plan.Floor {
			t.Fatalf("run %d: a floor without a bias", g)
		}
	}
	if swarmed < n/planSwarmOneIn-n/10 || swarmed > n/planSwarmOneIn+n/10 || floors < swarmed/4 || floors > swarmed*3/4 {
		t.Fatalf("%d of %d fresh inputs swarmed (%d downwards), want about 1 in %d, both ways", swarmed, n, floors, planSwarmOneIn)
	}
}

// TestPlanSwarmReshapesPlans: over the same 300 swarm-restart seeds, the
// plans of a floor-biased plan stream use fewer action kinds, fewer pods
// and fewer actions than the seeds' own plans, and top-biased ones more
// pods and more actions: the bias moves the plans' features, as swarm
// testing asks, and every such plan is one the generator can draw.
func TestPlanSwarmReshapesPlans(t *testing.T) {
	f := familyNamed("swarm-restart")
	shape := func(s Stream) [3]int {
		p := f.Generate(s.source())
		k, u := map[plan.ActionKind]bool{}, map[string]bool{}
		for _, a := range p.Actions {
			k[a.Kind], u[string(a.UID)] = true, true
		}
		return [3]int{len(k), len(u), len(p.Actions)}
	}
	var sum [3][3]int
	for seed := uint64(0); seed < 300; seed++ {
		tail := SeedInput(seed).Plan.Tail
		for i, s := range []Stream{{Tail: tail, Seeded: true}, {Tail: tail, Seeded: true, Bias: 2, Floor: true},
			{Tail: tail, Seeded: true, Bias: 2}} {
			for j, n := range shape(s) {
				sum[i][j] += n
			}
		}
	}
	plain, floor, top := sum[0], sum[1], sum[2]
	if floor[0] >= plain[0] || !(floor[1] < plain[1] && plain[1] < top[1]) || !(floor[2] < plain[2] && plain[2] < top[2]) {
		t.Fatalf("kinds/pods/actions over 300 plans: floor %v, plain %v, top %v; want fewer of each downwards, more pods and actions upwards",
			floor, plain, top)
	}
}
