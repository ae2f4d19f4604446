package world

import (
	"fmt"
	"slices"

	"github.com/podsim/podsim/workers/mutants"
	"github.com/podsim/podsim/world/catalogue"
	"github.com/podsim/podsim/world/kubebugs"
)

// B16PullTime and Mutants are the catalogue's (world/catalogue).
const B16PullTime = catalogue.B16PullTime

// Mutants lists every catalogued bug the kubelet World can re-introduce.
func Mutants() []kubebugs.Mutant { return catalogue.Mutants() }

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
