package history

import (
	"reflect"
	"testing"
)

// TestProbesReuse: after Reuse the probes hand out the memory of the
// probes made before, each as a new probe makes it (nothing of the run
// before left in it); without Reuse every slab is new.
func TestProbesReuse(t *testing.T) {
	var ps Probes
	ps.Reuse()
	pods := []PodAnswers{{UID: "a", Answers: Answers{Known: true}}, {UID: "b"}}
	mirror := []MirrorAnswer{{FullName: "pod-a_default", Terminating: true}}
	var before []*Probe
	for range SlabSize + 1 {
		before = append(before, ps.New(true, pods, mirror))
	}
	ps.Reuse()
	for i := range SlabSize + 1 {
		got := ps.Sharing(false, nil, nil)
		if got != before[i] {
			t.Fatalf("probe %d after Reuse: not the memory of the one made before", i)
		}
		if r := reflectPointer(got); !reflect.DeepEqual(*r, roomyProbe{}) {
			t.Errorf("probe %d after Reuse: %+v, want a zero probe", i, *r)
		}
	}
	var fresh Probes
	fresh.New(true, pods, mirror)
	if len(fresh.slab.freeArrays) != 0 {
		t.Errorf("without Reuse: %d slabs kept for reuse", len(fresh.slab.freeArrays))
	}
}

// reflectPointer is the roomyProbe a probe made by Probes is the head of.
func reflectPointer(p *Probe) *roomyProbe { return (*roomyProbe)(reflect.ValueOf(p).UnsafePointer()) }
