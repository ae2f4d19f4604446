package guided

import (
	"reflect"
	"testing"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/run"
	"github.com/podsim/podsim/sim"
)

// FuzzStreams feeds the Go fuzzing engine's bytes to a run's three streams
// (plan, schedule, faults: sim.Bytes over each), so the engine's own
// corpus and mutations explore the same choice space as the guided loop.
// The correct code must pass every check on every input, and the same
// bytes must give the same trace. Run with
//
//	go test -run '^$' -fuzz FuzzStreams ./guided
func FuzzStreams(f *testing.F) {
	f.Add(uint8(0), []byte{}, []byte{}, []byte{})
	f.Add(uint8(3), []byte{1, 2, 3, 4, 5, 6, 7, 8}, []byte{1, 0, 2, 0, 1}, []byte{255, 3, 255})
	f.Add(uint8(12), []byte{9, 9, 9, 0, 1}, []byte{2, 2, 2, 2}, []byte{200, 255, 255, 7})
	fams := plan.Families()
	f.Fuzz(func(t *testing.T, family uint8, planBytes, schedule, faults []byte) {
		fam := fams[int(family)%len(fams)]
		st := func() plan.Streams {
			return plan.Streams{Plan: sim.NewBytes(planBytes), Schedule: sim.NewBytes(schedule), Faults: sim.NewBytes(faults)}
		}
		_, _, r, _ := run.RecordStreams(fam, st(), Strategy, run.CheckOptions{})
		if r.Failed() {
			t.Fatalf("%s: the correct code fails: %s", fam.Name, r)
		}
		if _, _, again, _ := run.RecordStreams(fam, st(), Strategy, run.CheckOptions{}); again.TraceSHA != r.TraceSHA {
			t.Fatalf("%s: same bytes, traces %s then %s", fam.Name, r.TraceSHA, again.TraceSHA)
		}
	})
}

// FuzzParseToken: no string makes ParseToken panic, and whatever it reads
// is written back as a g2 token that reads as the same input (a g1 token
// too: both carry the same integers).
func FuzzParseToken(f *testing.F) {
	in := Input{Plan: Stream{Choices: []int{0, 5, 1 << 20}, Tail: 1<<63 + 5, Seeded: true}, Faults: Stream{Tail: 9, Seeded: true, Bias: 16}}
	for _, seed := range []string{in.Token(), "g2:AAGRAAASAA", "g2:AAEQAAEgAA", "g1:" + g1Body(f, in), "g2:", "g2:D_____________8gAAAAAAA"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, token string) {
		got, err := ParseToken(token)
		if err != nil {
			return
		}
		again, err := ParseToken(got.Token())
		if err != nil || !reflect.DeepEqual(again, got) {
			t.Fatalf("%q reads as %+v; its g2 token %q reads as %+v, %v", token, got, got.Token(), again, err)
		}
	})
}
