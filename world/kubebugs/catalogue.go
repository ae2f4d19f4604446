package kubebugs

// The catalogue's plain data: what a catalogued bug is, the families the
// gate runs each against, and the kubelet-level ("K") entries with the
// switch each one sets. Package world assembles the whole list
// (world.Mutants) and re-introduces a bug by name (World.Reintroduce).

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
	"B17": {"shutdown-restart"},
	"V2":  {"recreate-same-name"},
}

// kubeletMutants are docs/bugs.md's K entries, each a field of Bugs
// (package world's kubelet.go documents where each one acts).
var kubeletMutants = []struct {
	Mutant
	on func(*Bugs)
}{
	{Mutant{Name: "B4", Issue: "#104531", Invariants: []string{"K5"},
		Mutation: "the node-shutdown status function leaves the phase non-terminal"},
		func(b *Bugs) { b.B4ShutdownKeepsPhase = true }},
	{Mutant{Name: "B5", Issue: "#104560, #104817", Invariants: []string{"K1"},
		Mutation: "admission counts a locally rejected pod until the API echoes its Failed phase"},
		func(b *Bugs) { b.B5AdmitCountsRejected = true }},
	{Mutant{Name: "B10", Issue: "#106884", Invariants: []string{"K2"},
		Mutation: "the status manager writes a terminal phase while containers could still run"},
		func(b *Bugs) { b.B10StatusIgnoresRunning = true }},
	{Mutant{Name: "B13", Issue: "#118472", Invariants: []string{"L7", "K3"},
		Mutation: "housekeeping does not filter terminal pods to delete: a rejected, deleted pod is never deleted"},
		func(b *Bugs) { b.B13NoTerminalDeleteFilter = true }},
	{Mutant{Name: "B17", Issue: "#122674", Invariants: []string{"K5"},
		Mutation: "a kubelet restarted during the node shutdown does not learn of it and admits new pods"},
		func(b *Bugs) { b.B17RestartForgetsShutdown = true }},
	{Mutant{Name: "V2", Issue: "virtual-kubelet #867, #907", Invariants: []string{"K6"},
		Mutation: "the grace reaper's delayed forced delete is keyed by name: it deletes a pod re-created under that name"},
		func(b *Bugs) { b.V2ReaperKeyedByName = true }},
}

// Families returns the families the gate runs the mutant called name
// against (nil for a name it does not know).
func Families(name string) []string { return gateFamilies[name] }

// Kubelet returns the K entries in catalogue order, their kind and
// families filled in.
func Kubelet() []Mutant {
	out := make([]Mutant, 0, len(kubeletMutants))
	for _, k := range kubeletMutants {
		m := k.Mutant
		m.Kind, m.Families = KindKubelet, gateFamilies[m.Name]
		out = append(out, m)
	}
	return out
}

// SwitchOn sets, in b, the switch of the K entry called name and leaves
// the others as they are; false if no K entry is called name.
func SwitchOn(name string, b *Bugs) bool {
	for _, k := range kubeletMutants {
		if k.Name == name {
			k.on(b)
			return true
		}
	}
	return false
}
