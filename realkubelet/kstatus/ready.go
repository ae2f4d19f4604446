package kstatus

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// The readiness conditions of the statuses SetPhase gives SetPodStatus.
//
// The kubelet's generateAPIPodStatus adds a pod's Ready and ContainersReady
// conditions from its containers' readiness (the prober's results), not
// from the phase: while a kill's SyncTerminatingPod begins, the containers
// still run and are ready, and the kill's status function (the eviction
// manager's, the node shutdown manager's) sets the phase Failed on a
// status whose Ready is still True. Upstream issue #108594 was that
// status reaching the API; since #110256 the status manager's merge makes
// both conditions False whenever the phase it writes is terminal. K7,
// judged at every write the manager makes (status.Component), holds the
// real manager to it.
//
// The fake runtime's containers are ready as soon as they run: from a
// SyncPod that returned Running until one that returned Succeeded (they
// exited) or a SyncTerminatingPod that stopped them (Stopped).

// setReadiness records what phase says of uid's containers and sets st's
// two readiness conditions from it.
func (m *Manager) setReadiness(uid types.UID, phase v1.PodPhase, st *v1.PodStatus) {
	switch phase {
	case v1.PodRunning:
		m.running[uid] = true
	case v1.PodSucceeded, v1.PodFailed:
		delete(m.running, uid)
	}
	status := v1.ConditionFalse
	if m.running[uid] {
		status = v1.ConditionTrue
	}
	setCondition(st, v1.ContainersReady, status)
	setCondition(st, v1.PodReady, status)
}

// Stopped: a SyncTerminatingPod stopped uid's containers; its next status
// says they are not ready.
func (m *Manager) Stopped(uid types.UID) { delete(m.running, uid) }

// setCondition replaces st's condition of type t, or appends one. The
// status manager sets LastTransitionTime (updateLastTransitionTime).
func setCondition(st *v1.PodStatus, t v1.PodConditionType, status v1.ConditionStatus) {
	for i := range st.Conditions {
		if st.Conditions[i].Type == t {
			st.Conditions[i].Status = status
			return
		}
	}
	st.Conditions = append(st.Conditions, v1.PodCondition{Type: t, Status: status})
}
