package run

import (
	"fmt"
	"strings"

	"github.com/podsim/podsim/vkworld"
	"github.com/podsim/podsim/world"
	"github.com/podsim/podsim/world/kubebugs"
)

// The whole race catalogue is assembled here, at the composition root:
// the kubelet world's mutants (world.Mutants: the workers' G and M entries,
// the B16 fault, the kubelet-level K entries) and the simulated VK world's
// (vkworld.Mutants). Neither world knows the other's catalogue.

// Mutant is one catalogued bug the regression gate re-introduces by name
// (CheckOptions.Mutant) and expects the oracles to catch.
type Mutant = kubebugs.Mutant

// KindVK is an entry of virtual-kubelet's history (docs/vk.md), in the
// simulated VK world, which runs the VK families.
const KindVK kubebugs.MutantKind = "VK"

// Mutants lists every catalogued bug: the kubelet world's, then the VK
// world's.
func Mutants() []Mutant {
	out := world.Mutants()
	for _, v := range vkworld.Mutants() {
		out = append(out, Mutant{Name: v.Name, Kind: KindVK, Issue: "virtual-kubelet " + v.Issue, Families: v.Families,
			Invariants: v.Invariants, Mutation: v.Mutation})
	}
	return out
}

// MutantNamed returns the catalogued mutant called name.
func MutantNamed(name string) (Mutant, bool) {
	for _, m := range Mutants() {
		if m.Name == name {
			return m, true
		}
	}
	return Mutant{}, false
}

// MutantNames lists the names of Mutants(), in order.
func MutantNames() []string {
	var out []string
	for _, m := range Mutants() {
		out = append(out, m.Name)
	}
	return out
}

// UnknownMutantError is a mutant name that is not catalogued.
type UnknownMutantError struct{ Name string }

func (e *UnknownMutantError) Error() string {
	return fmt.Sprintf("unknown mutant %q: want one of %s", e.Name, strings.Join(MutantNames(), ", "))
}

// mutantFor checks that mutant (if any) is catalogued and runs on the
// target a plan is for (vk: the VK world).
func mutantFor(mutant string, vk bool) error {
	if mutant == "" {
		return nil
	}
	m, ok := MutantNamed(mutant)
	switch {
	case !ok:
		return &UnknownMutantError{Name: mutant}
	case m.Kind == KindVK && !vk:
		return fmt.Errorf("mutant %s is virtual-kubelet's: it runs on the VK families only", mutant)
	case m.Kind != KindVK && vk:
		return fmt.Errorf("mutant %s is the kubelet's: it does not run on the VK families", mutant)
	}
	return nil
}
