package workers

import (
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// minKillTimeoutSeconds is killPodNow's floor: time for kubelet→runtime traffic to
// complete a SIGKILL even with a tiny grace period.
const minKillTimeoutSeconds = 10

// calculateEffectiveGracePeriod is SPEC §1.7: starting from the record's
// grace (0 = unset), the API server's DeletionGracePeriodSeconds ("bedrock
// truth") and then a kill override may only lower it; the pod spec applies
// only when nothing overrode and nothing is set; the result is at least 1.
// An explicit 0 therefore yields 1, not the spec grace (#115819). shortened
// reports that an already-set grace went down, which cancels the current
// sync.
//
// Deliberate difference from upstream v1.36.3 and from SPEC §1.7's steps
// read literally: there the override step tests "grace == 0" for "unset"
// even when the deletion grace has just set it to an explicit 0, so a
// force-deleted pod (deletion grace 0, effective 1 s) that then gets a kill
// with an override of, say, 10 s is lengthened to 10 s and its in-flight
// kill cancelled. That breaks §1.7's own "never increases" and invariant
// S11; here an explicit 0 counts as set.
func calculateEffectiveGracePeriod(status *podSyncStatus, pod *v1.Pod, kill *KillPodOptions) (grace int64, shortened bool) {
	grace = status.gracePeriod
	set := grace != 0
	lower := func(v int64) {
		if !set || v < grace {
			grace, set = v, true
		}
	}
	if pod != nil && pod.DeletionGracePeriodSeconds != nil {
		lower(*pod.DeletionGracePeriodSeconds)
	}
	if kill != nil && kill.PodTerminationGracePeriodSecondsOverride != nil {
		lower(*kill.PodTerminationGracePeriodSecondsOverride)
	}
	if !set && pod != nil && pod.Spec.TerminationGracePeriodSeconds != nil {
		grace = *pod.Spec.TerminationGracePeriodSeconds
	}
	if grace < 1 {
		grace = 1
	}
	return grace, status.gracePeriod != 0 && grace < status.gracePeriod
}

// KillTimeoutError is returned by KillPodNow when the pod did not terminate
// in time (the kubelet emits ExceededGracePeriod then).
type KillTimeoutError struct {
	UID     types.UID
	Timeout time.Duration
}

func (e *KillTimeoutError) Error() string {
	return fmt.Sprintf("workers: kill pod %s: timeout waiting to kill pod after %s", e.UID, e.Timeout)
}

// KillPodNow is the kubelet's killPodNow (used by eviction, preemption and
// node shutdown): it sends a kill and waits until the pod is terminated. It
// returns a *KillTimeoutError after max(10 s, 1.5 × grace), where grace is
// the override if given, else the spec grace.
func (p *PodWorkers) KillPodNow(pod *v1.Pod, evict bool, gracePeriodOverride *int64, statusFn PodStatusFunc) error {
	timeout := killTimeout(pod, gracePeriodOverride)
	completed := p.rt.NewEvent("killed/" + string(pod.UID))
	p.UpdatePod(UpdatePodOptions{
		UpdateType: SyncPodKill,
		Pod:        pod,
		KillPodOptions: &KillPodOptions{
			CompletedCh:                              completed,
			Evict:                                    evict,
			PodStatusFunc:                            statusFn,
			PodTerminationGracePeriodSecondsOverride: gracePeriodOverride,
		},
	})
	if completed.WaitFor(timeout) {
		return nil
	}
	return &KillTimeoutError{UID: pod.UID, Timeout: timeout}
}

// killTimeout is killPodNow's wait: grace + grace/2 whole seconds (integer
// division, as upstream), at least 10 seconds.
func killTimeout(pod *v1.Pod, gracePeriodOverride *int64) time.Duration {
	var grace int64
	switch {
	case gracePeriodOverride != nil:
		grace = *gracePeriodOverride
	case pod.Spec.TerminationGracePeriodSeconds != nil:
		grace = *pod.Spec.TerminationGracePeriodSeconds
	}
	timeout := max(grace+grace/2, minKillTimeoutSeconds)
	return time.Duration(timeout) * time.Second
}
