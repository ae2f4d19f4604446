package workers

import (
	v1 "k8s.io/api/core/v1"

	"github.com/podsim/podsim/workers/internal/mutant"
)

// The helpers of the mutation points that need more than a line. Each
// mutation point in the package is marked "// mutant <id>:"; every hook is
// a bit test on PodWorkers.mutants, false unless workers/mutants.Enable
// switched the mutant on. The mutants and the invariants expected to catch
// them are documented in workers/mutants.

// observedRecord is the record as the lifecycle queries see it. With B1
// (#102344, pre-1.22) a pod whose kill was requested looks terminated to
// every other loop even though its worker may still be inside SyncPod: the
// queries answer "nothing runs" from the request, not from the worker's
// progress. The copy is made only when B1 is on.
func (p *PodWorkers) observedRecord(s *podSyncStatus) *podSyncStatus {
	if !p.mutants.Has(mutant.B1) || !s.terminationRequested || s.terminated {
		return s
	}
	view := *s
	view.terminated, view.startedTerminating = true, true
	return &view
}

// lostKillWorkType is B2 (the pre-1.22 single-slot coalescing bug): the
// work type comes from the consumed update instead of the record, so an
// update that replaced a pending kill runs SyncPod and the kill is lost.
// Once the worker has acknowledged the termination, the record decides.
func lostKillWorkType(s *podSyncStatus, update UpdatePodOptions) WorkType {
	pod := update.Pod
	if s.terminated || s.startedTerminating || update.UpdateType == SyncPodKill || pod == nil ||
		pod.DeletionTimestamp != nil || isTerminalPhase(pod) {
		return s.workType()
	}
	return SyncPodWork
}

// zeroGraceIsUnset is B12 (#115819): an explicit grace of 0 (force delete,
// hard eviction) is taken for "unset", so the effective grace falls through
// to the pod spec's. It returns pod and kill with their zero grace values
// removed, for calculateEffectiveGracePeriod.
func zeroGraceIsUnset(pod *v1.Pod, kill *KillPodOptions) (*v1.Pod, *KillPodOptions) {
	if pod != nil && pod.DeletionGracePeriodSeconds != nil && *pod.DeletionGracePeriodSeconds == 0 {
		copied := *pod
		copied.DeletionGracePeriodSeconds = nil
		pod = &copied
	}
	if kill != nil && kill.PodTerminationGracePeriodSecondsOverride != nil && *kill.PodTerminationGracePeriodSecondsOverride == 0 {
		copied := *kill
		copied.PodTerminationGracePeriodSecondsOverride = nil
		kill = &copied
	}
	return pod, kill
}

// SetMutants switches on the mutants of s in pod workers that have not run
// yet, for a harness that builds its pod workers before it knows the run's
// mutant (the simulated kubelet, package world). Like Config.Mutants, only workers/mutants
// can build a non-empty Set. It panics once any pod has been seen: a
// mutant switched on mid-run would make the run's history meaningless.
// It takes no lock (under the simulated runtime, locking is only possible
// inside the simulation): call it from the goroutine that built the pod
// workers, before any other method, while no worker goroutine exists.
func (p *PodWorkers) SetMutants(s mutant.Set) {
	if len(p.workerGenerations) > 0 || len(p.records) > 0 || p.podsSynced {
		panic("workers: SetMutants: the pod workers already ran")
	}
	p.mutants = s
}

// SetNoAssertions is Config.NoAssertions for pod workers that have not run
// yet, for a harness that builds its pod workers before it knows how the run
// is judged (the simulated kubelet, package world). Like SetMutants it
// panics once any pod has been seen and takes no lock.
func (p *PodWorkers) SetNoAssertions() {
	if len(p.workerGenerations) > 0 || len(p.records) > 0 || p.podsSynced {
		panic("workers: SetNoAssertions: the pod workers already ran")
	}
	p.noAssertions = true
}
