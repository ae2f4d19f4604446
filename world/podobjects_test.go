package world

import (
	"fmt"
	"slices"
	"strconv"
	"testing"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
)

// TestSharedPodMapsStayAsBuilt: the pod objects of a run share their label
// and annotation maps (history.PodObjects), so nothing may write to them;
// after 20 seeds of every kubelet family, under every catalogued mutant of
// the family too, each shared map still holds what it was built with.
func TestSharedPodMapsStayAsBuilt(t *testing.T) {
	mutantRuns := 0
	for _, f := range plan.KubeletFamilies() {
		mutants := []string{""}
		for _, m := range Mutants() {
			if slices.Contains(m.Families, f.Name) {
				mutants = append(mutants, m.Name)
			}
		}
		for _, mutant := range mutants {
			for seed := range uint64(20) {
				st := plan.SeedStreams(seed)
				w := NewWorld(f.Generate(st.Plan), st.Schedule, st.Faults, sim.RandomWalk{})
				if mutant != "" {
					if err := w.Reintroduce(mutant); err != nil {
						t.Fatal(err)
					}
				}
				if mutant != "" {
					mutantRuns++
				}
				w.Run()
				if bad := sharedMapsChanged(w); bad != "" {
					t.Fatalf("%s %s seed %d: %s", f.Name, mutant, seed, bad)
				}
			}
		}
	}
	if mutantRuns == 0 {
		t.Fatal("no mutant matched a family: only correct runs were checked")
	}
}

// sharedMapsChanged says which of the shared maps of w's pod objects no
// longer holds what it was built with ("" if none), through a pod object
// of each pod's current version.
func sharedMapsChanged(w *World) string {
	for _, uid := range w.uids {
		p, pod := w.pod(uid), w.podOf(uid)
		source := history.ApiserverSource
		if p.action.Static {
			source = "file"
		}
		if len(pod.Labels) != 1 || pod.Labels["version"] != strconv.Itoa(p.version) {
			return fmt.Sprintf("pod %s, version %d: labels %v", uid, p.version, pod.Labels)
		}
		if len(pod.Annotations) != 1 || pod.Annotations[history.ConfigSourceAnnotationKey] != source {
			return fmt.Sprintf("pod %s, source %s: annotations %v", uid, source, pod.Annotations)
		}
	}
	return ""
}

// TestPodFindsItsPod: pod (a scan of the run's pods, which replaced a map
// by UID) finds each pod of the plan by its UID, and none for a UID the
// plan never named, in every kubelet family.
func TestPodFindsItsPod(t *testing.T) {
	for _, f := range plan.KubeletFamilies() {
		st := plan.SeedStreams(1)
		w := NewWorld(f.Generate(st.Plan), st.Schedule, st.Faults, sim.RandomWalk{})
		w.Run()
		if len(w.uids) == 0 || len(w.uids) != len(w.inOrder) {
			t.Fatalf("%s: uids %v, %d pods", f.Name, w.uids, len(w.inOrder))
		}
		for i, uid := range w.uids {
			if p := w.pod(uid); p != w.inOrder[i] || p.action.UID != uid {
				t.Errorf("%s: pod(%s) is %+v, want %+v", f.Name, uid, p, w.inOrder[i])
			}
		}
		if p := w.pod("never-named"); p != nil {
			t.Errorf("%s: pod of a UID never named: %+v", f.Name, p)
		}
	}
}
