package world

import (
	"fmt"
	"strings"
	"time"

	"github.com/podsim/podsim/workers/mutants"
)

// MutantKind says where a catalogued bug is re-introduced.
type MutantKind string

const (
	// KindGap is a contract gap of SPEC §1.17 (docs/bugs.md G1–G4), in workers/.
	KindGap MutantKind = "G"
	// KindWorkers is a docs/bugs.md "M" entry, in workers/.
	KindWorkers MutantKind = "M"
	// KindKubelet is a docs/bugs.md "K" entry, in the simulated kubelet World.
	KindKubelet MutantKind = "K"
	// KindFault is a misbehaviour of the fake runtime (B16).
	KindFault MutantKind = "fault"
)

// Mutant is one catalogued bug the regression gate re-introduces by name
// (CheckOptions.Mutant) and expects the oracles to catch.
type Mutant struct {
	// Name is the docs/bugs.md id, e.g. "B2".
	Name  string
	Kind  MutantKind
	Issue string
	// Families are the scenario families the gate runs it against: the
	// ones built to reach its interleaving.
	Families []string
	// Invariants are the checks expected to fire (docs/spec.md ids, "internal"
	// for the workers' own invariants, "kill-latency" for B16's bound).
	Invariants []string
	// Mutation says what is changed.
	Mutation string
}

// B16PullTime is the uncancellable image pull of the B16 fault mode: far
// beyond KillLatencyBound, as a real pull of a large image is.
const B16PullTime = 45 * time.Second

// gateFamilies are the families each mutant is run against: where its
// interleaving is reachable (chosen by the families' purpose, docs/bugs.md's
// scenario for the bug, and measured detection, docs/regression-gate.md).
var gateFamilies = map[string][]string{
	"G1":  {"grace-shortening", "swarm"},
	"G2":  {"static-fullname-chain", "swarm"},
	"G3":  {"static-fullname-chain", "force-delete-failing-terminate", "swarm"},
	"G4":  {"swarm", "force-delete-failing-terminate"},
	"B1":  {"kill-during-create", "early-kill", "swarm"},
	"B2":  {"update-storm", "early-kill", "swarm"},
	"B3":  {"orphan-runtime-pods", "swarm"},
	"B6":  {"static-restart-same-uid", "early-kill", "swarm"},
	"B7":  {"static-fullname-chain", "static-restart-same-uid", "swarm"},
	"B8":  {"static-fullname-chain", "swarm"},
	"B11": {"force-delete-failing-terminate", "swarm"},
	"B12": {"grace-shortening", "kill-during-create", "update-storm", "swarm"},
	"B14": {"static-fullname-chain", "swarm"},
	"B16": {"kill-during-create", "swarm"},
	"B4":  {"node-shutdown", "swarm"},
	"B5":  {"rejected-admission", "swarm"},
	"B10": {"rejected-admission", "swarm"},
	"B13": {"rejected-admission", "swarm"},
	"V2":  {"recreate-same-name"},
}

// Mutants lists every catalogued bug the kubelet World can re-introduce:
// the workers' G and M mutants (workers/mutants) in docs/bugs.md order, the
// B16 runtime fault, then the kubelet-level K entries of the World
// (KubeletBugs), virtual-kubelet's V2 (in the World's API server model)
// last. The whole catalogue (with the simulated VK world's) is assembled in
// package run (run.Mutants).
func Mutants() []Mutant {
	var out []Mutant
	for _, info := range mutants.Catalogue() {
		kind := KindWorkers
		if strings.HasPrefix(info.Name, "G") {
			kind = KindGap
		}
		out = append(out, Mutant{Name: info.Name, Kind: kind, Issue: info.Issue, Families: gateFamilies[info.Name],
			Invariants: info.Invariants, Mutation: info.Mutation})
	}
	out = append(out, Mutant{Name: "B16", Kind: KindFault, Issue: "#125050, #113606", Families: gateFamilies["B16"],
		Invariants: []string{"kill-latency"},
		Mutation:   fmt.Sprintf("SyncPod's image pull (%v) ignores the kill; containers start after it", B16PullTime)})
	for _, k := range kubeletMutants {
		m := k.Mutant
		m.Kind, m.Families = KindKubelet, gateFamilies[m.Name]
		out = append(out, m)
	}
	return out
}

// kubeletMutants are docs/bugs.md's K entries, each a field of the World's
// KubeletBugs (kubelet.go documents where each one acts).
var kubeletMutants = []struct {
	Mutant
	on func(*KubeletBugs)
}{
	{Mutant{Name: "B4", Issue: "#104531", Invariants: []string{"K5"},
		Mutation: "the node-shutdown status function leaves the phase non-terminal"},
		func(b *KubeletBugs) { b.B4ShutdownKeepsPhase = true }},
	{Mutant{Name: "B5", Issue: "#104560, #104817", Invariants: []string{"K1"},
		Mutation: "admission counts a locally rejected pod until the API echoes its Failed phase"},
		func(b *KubeletBugs) { b.B5AdmitCountsRejected = true }},
	{Mutant{Name: "B10", Issue: "#106884", Invariants: []string{"K2"},
		Mutation: "the status manager writes a terminal phase while containers could still run"},
		func(b *KubeletBugs) { b.B10StatusIgnoresRunning = true }},
	{Mutant{Name: "B13", Issue: "#118472", Invariants: []string{"L7", "K3"},
		Mutation: "housekeeping does not filter terminal pods to delete: a rejected, deleted pod is never deleted"},
		func(b *KubeletBugs) { b.B13NoTerminalDeleteFilter = true }},
	{Mutant{Name: "V2", Issue: "virtual-kubelet #867, #907", Invariants: []string{"K6"},
		Mutation: "the grace reaper's delayed forced delete is keyed by name: it deletes a pod re-created under that name"},
		func(b *KubeletBugs) { b.V2ReaperKeyedByName = true }},
}

// mutantNamed returns the kubelet world's mutant called name.
func mutantNamed(name string) (Mutant, bool) {
	for _, m := range Mutants() {
		if m.Name == name {
			return m, true
		}
	}
	return Mutant{}, false
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
	m, ok := mutantNamed(name)
	switch {
	case !ok:
		return fmt.Errorf("world: no kubelet mutant %q (run.Mutants lists the catalogue)", name)
	case m.Kind == KindFault:
		w.Runtime.Faults.UncancellablePull = B16PullTime
		return nil
	case m.Kind == KindKubelet:
		for _, k := range kubeletMutants {
			if k.Name == name {
				k.on(&w.Bugs)
			}
		}
		return nil
	}
	w.workersMutant = name
	return mutants.Reintroduce(w.PW, name)
}

// KubeletBugsOf is the kubelet bugs the kubelet mutant called name switches
// on; ok is false for any other name.
func KubeletBugsOf(name string) (bugs KubeletBugs, ok bool) {
	for _, k := range kubeletMutants {
		if k.Name == name {
			k.on(&bugs)
			ok = true
		}
	}
	return bugs, ok
}
