// Package mutants is the only way to re-introduce a catalogued bug
// (shared/docs/bugs.md) into the pod workers: Enable switches a mutant on in a
// workers.Config. It exists for podsim's regression gate, which must prove
// that the oracles catch every historical race; production code has no
// reason to import it, and internal/depcheck fails the build of any package
// but the world that does. With no mutant enabled (the zero
// workers.Config) the pod workers are the correct code, and each mutation
// point costs one bit test (BenchmarkUpdatePodMutantsOff).
package mutants

import (
	"fmt"
	"strings"

	"github.com/podsim/podsim/workers"
	"github.com/podsim/podsim/workers/internal/mutant"
)

// Info documents one mutant of workers/.
type Info struct {
	// Name is the docs/bugs.md id ("B2"), the name Enable takes.
	Name string
	// Issue is the upstream issue or PR the bug comes from ("#102344"), or
	// the SPEC section of a contract gap ("SPEC §1.17-1").
	Issue string
	// Invariants are the docs/spec.md invariants expected to catch it
	// ("internal" is the workers' own invariant check, "linearizability"
	// the history check against the reference model).
	Invariants []string
	// Mutation says what the mutant changes, in one line.
	Mutation string
}

// catalogue is docs/bugs.md's M and G entries that workers/ can express, in
// mutant.ID order. B16 is a fault of the fake runtime (package world), and the
// K entries and V2 live in the simulated world, so they are not here.
var catalogue = [...]Info{
	mutant.G1: {"G1", "SPEC §1.17-1", []string{"S14", "L6", "linearizability"},
		"a kill of an already finished pod never fires its completion Event"},
	mutant.G2: {"G2", "SPEC §1.17-2", []string{"S14", "L6", "linearizability"},
		"unstarted cleanup and the purge of an unstarted orphan never fire the kills' completion Events"},
	mutant.G3: {"G3", "SPEC §1.17-3", []string{"S9", "internal"},
		"unstarted cleanup leaves ShouldPodContainersBeTerminating false while ShouldPodRuntimeBeRemoved is true"},
	mutant.G4: {"G4", "SPEC §1.17-4", []string{"S3", "internal"},
		"SyncKnownPods starts terminating a started orphan without cancelling its in-flight SyncPod"},
	mutant.B1: {"B1", "#102344", []string{"S7", "S4", "S9"},
		"the queries answer 'terminated' as soon as a kill is requested, while SyncPod may still run"},
	mutant.B2: {"B2", "#25065 era, #52641", []string{"S3", "S13", "L1", "internal"},
		"the work type comes from the consumed update, so an update that replaced a pending kill runs SyncPod"},
	mutant.B3: {"B3", "#103625 (fixed by #103668)", []string{"S17", "S2", "linearizability"},
		"a runtime-only kill of a terminated pod is queued and re-drives it"},
	mutant.B6: {"B6", "#104648 (fixed by #104847)", []string{"L4", "linearizability"},
		"a create for a terminating UID is an ordinary update: restartRequested is never set, the pod never restarts"},
	mutant.B7: {"B7", "#97722 (fixed by #104743)", []string{"S15", "internal"},
		"static pods are not excluded by full name"},
	mutant.B8: {"B8", "#107733 (fixed by #107900)", []string{"L5", "L1", "S15"},
		"a static waiter killed before it started 'cannot start yet' and keeps its place at the head of the wait list"},
	mutant.B11: {"B11", "#113145", []string{"L1", "L8", "linearizability"},
		"SyncKnownPods purges finished orphans only and never drives unfinished ones"},
	mutant.B12: {"B12", "#115819", []string{"S11"},
		"an explicit grace of 0 counts as unset and falls through to the spec grace"},
	mutant.B14: {"B14", "#116995, #116715", []string{"L3", "L5", "linearizability"},
		"a static pod refused by the full-name exclusion loses its pending update"},
}

// Catalogue lists every mutant of workers/, in docs/bugs.md order.
func Catalogue() []Info {
	out := make([]Info, len(catalogue))
	for i, info := range catalogue {
		info.Invariants = append([]string(nil), info.Invariants...)
		out[i] = info
	}
	return out
}

// Enable switches on the mutants called names (docs/bugs.md ids) in cfg. An
// unknown name is an error naming the known ones; cfg is then unchanged.
func Enable(cfg *workers.Config, names ...string) error {
	set := cfg.Mutants
	for _, name := range names {
		id, ok := mutant.Lookup(name)
		if !ok {
			return fmt.Errorf("unknown workers mutant %q: want one of %s", name, strings.Join(Names(), ", "))
		}
		set = set.With(id)
	}
	cfg.Mutants = set
	return nil
}

// Reintroduce switches on the mutants called names in pod workers that
// have not run yet (PodWorkers.SetMutants); an unknown name is an error and
// changes nothing.
func Reintroduce(pw *workers.PodWorkers, names ...string) error {
	var cfg workers.Config
	if err := Enable(&cfg, names...); err != nil {
		return err
	}
	pw.SetMutants(cfg.Mutants)
	return nil
}

// Names lists the mutant names, in docs/bugs.md order.
func Names() []string {
	out := make([]string, len(catalogue))
	for i, info := range catalogue {
		out[i] = info.Name
	}
	return out
}
