// Package catalogue lists the catalogued bugs the kubelet world can
// re-introduce (world.Mutants, World.Reintroduce): the pod workers' G and M
// mutants, the B16 runtime fault and the kubelet-level K entries. It is
// data assembled from workers/mutants and world/kubebugs; no world.
package catalogue

import (
	"fmt"
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
