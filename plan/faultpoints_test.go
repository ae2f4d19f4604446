package plan

import (
	"slices"
	"testing"

	"github.com/podsim/podsim/sim"
)

// point is a world's fault-point enum, as the worlds declare theirs.
type point int

// TestDrawFaultPoints: a run draws one choice per applicable point, in
// order, each of FaultPointOneIn options; a point is on exactly when its
// choice is the top one, a point not applicable draws nothing and stays
// off, and the draws that follow are the stream's next choices.
func TestDrawFaultPoints(t *testing.T) {
	applicable := ApplicableFaultPoints(point(6), func(p point) bool { return p != 1 && p != 4 })
	if want := []point{0, 2, 3, 5}; !slices.Equal(applicable, want) {
		t.Fatalf("applicable %v, want %v", applicable, want)
	}
	top := FaultPointOneIn - 1
	rec := sim.NewRecorder(sim.NewReplay([]int{top, 0, top - 1, top, 3}))
	on := DrawFaultPoints(rec, applicable)
	if got, want := on.List(), []point{0, 5}; !slices.Equal(got, want) {
		t.Fatalf("on %v, want %v", got, want)
	}
	if on.On(1) || on.On(2) || on.On(3) || on.On(4) || !on.On(0) || !on.On(5) {
		t.Fatalf("On disagrees with List %v", on.List())
	}
	if got := rec.Choices(); len(got) != 4 {
		t.Fatalf("%d draws, want one per applicable point (4)", len(got))
	}
	if off := DrawFaultPoints(sim.NewReplay(nil), applicable); off.List() != nil {
		t.Fatalf("choices of 0 switched on %v", off.List())
	}
	counter := &optionsSeen{}
	DrawFaultPoints(counter, applicable)
	if counter.n != FaultPointOneIn || counter.draws != 4 {
		t.Fatalf("draws of %d options (%d draws), want %d options", counter.n, counter.draws, FaultPointOneIn)
	}
}

// optionsSeen is a Source that answers 0 and keeps how many options it
// was offered.
type optionsSeen struct{ n, draws int }

func (o *optionsSeen) Intn(n int) int {
	o.n, o.draws = n, o.draws+1
	return 0
}

// TestAllFaultPoints: a world's n points are 0..n-1.
func TestAllFaultPoints(t *testing.T) {
	if got := AllFaultPoints(point(3)); !slices.Equal(got, []point{0, 1, 2}) {
		t.Fatalf("got %v", got)
	}
}

// TestDrawFaultPointsRefusesPointsPastTheSet: a point a set cannot hold is
// a programming error, not a silent "off".
func TestDrawFaultPointsRefusesPointsPastTheSet(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("point 64 was drawn without a panic")
		}
	}()
	DrawFaultPoints(sim.NewReplay(nil), []point{64})
}
