package world

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/podsim/podsim/workers/mutants"
	"github.com/podsim/podsim/world/kubebugs"
)

// B16PullTime is the uncancellable image pull of the B16 fault mode: far
// beyond KillLatencyBound, as a real pull of a large image is.
const B16PullTime = 45 * time.Second

// Mutants lists every catalogued bug the kubelet World can re-introduce:
// the workers' G and M mutants (workers/mutants) in docs/bugs.md order, the
// B16 runtime fault, then the kubelet-level K entries of the World
// (KubeletBugs), virtual-kubelet's V2 (in the World's API server model)
// last. The whole catalogue (with the simulated VK world's) is assembled in
// package run (run.Mutants).
func Mutants() []kubebugs.Mutant {
	var out []kubebugs.Mutant
	for _, info := range mutants.Catalogue() {
		kind := kubebugs.KindWorkers
		if strings.HasPrefix(info.Name, "G") {
			kind = kubebugs.KindGap
		}
		out = append(out, kubebugs.Mutant{Name: info.Name, Kind: kind, Issue: info.Issue, Families: kubebugs.Families(info.Name),
			Invariants: info.Invariants, Mutation: info.Mutation})
	}
	out = append(out, kubebugs.Mutant{Name: "B16", Kind: kubebugs.KindFault, Issue: "#125050, #113606", Families: kubebugs.Families("B16"),
		Invariants: []string{"kill-latency"},
		Mutation:   fmt.Sprintf("SyncPod's image pull (%v) ignores the kill; containers start after it", B16PullTime)})
	return append(out, kubebugs.Kubelet()...)
}

// Reintroduce switches the mutant called name on in a world that has not
// run yet: a runtime fault is set in the fake runtime, a workers mutant in
// the pod workers (nothing has used them yet). "" leaves the correct code.
// A kubelet restart builds new pod workers; startEpoch switches
// workersMutant on in them too.
func (w *World) Reintroduce(name string) error {
	if name == "" {
		return nil // most runs: no catalogue to build
	}
	ms := Mutants()
	switch i := slices.IndexFunc(ms, func(m kubebugs.Mutant) bool { return m.Name == name }); {
	case i < 0:
		return fmt.Errorf("world: no kubelet mutant %q (run.Mutants lists the catalogue)", name)
	case ms[i].Kind == kubebugs.KindFault:
		w.Runtime.Faults.UncancellablePull = B16PullTime
		return nil
	case ms[i].Kind == kubebugs.KindKubelet:
		kubebugs.SwitchOn(name, &w.Bugs)
		return nil
	}
	w.workersMutant = name
	return mutants.Reintroduce(w.PW, name)
}

// KubeletBugsOf is the kubelet bugs the kubelet mutant called name switches
// on; ok is false for any other name.
func KubeletBugsOf(name string) (bugs KubeletBugs, ok bool) {
	ok = kubebugs.SwitchOn(name, &bugs)
	return bugs, ok
}
