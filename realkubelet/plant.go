package realkubelet

import (
	kubetypes "k8s.io/kubernetes/pkg/kubelet/types"

	"k8s.io/kubernetes/pkg/kubelet"
)

// plantedBug is a bug planted in the driver, for the negative tests of the
// explanations (explain_test.go): each makes the driver's record of what
// happened differ from what the real pod workers were told or did, in a
// way that resembles a known deviation without being one. The zero value
// plants nothing; only tests set it.
type plantedBug uint8

const (
	// plantDecoyCompletion: the first kill of a running pod hands the pod
	// workers a decoy completion channel, so the recorded one is never
	// closed on the normal termination path.
	plantDecoyCompletion plantedBug = iota + 1
	// plantLostKill: the first kill is recorded but never reaches the pod
	// workers.
	plantLostKill
	// plantLyingSyncer: the first SyncTerminatingPod that the driver
	// releases with success returns an error to the pod workers.
	plantLyingSyncer
	// plantShutdownKeepsPhase: the node shutdown manager's kills carry a
	// status function that leaves the phase alone (B4, at the manager's
	// boundary).
	plantShutdownKeepsPhase
	// plantAdmitInShutdown: admission lets pods in during the shutdown.
	plantAdmitInShutdown
	// The status component's (status.go), for the kubelet oracle's
	// negative tests (status_test.go): plantUnsafeStatus gives the status
	// manager a deletion safety that always says "no running containers";
	// plantEarlyTerminate calls TerminatePod when SyncTerminatedPod begins
	// instead of when it succeeds; plantNoTerminate never calls it.
	plantUnsafeStatus
	plantEarlyTerminate
	plantNoTerminate
	// plantIdleCacheOnRestart: the restarted process's runtime cache shows
	// every pod idle, so a terminal pod whose containers still run is
	// taken as terminated at first sight (restart.go, restart_test.go).
	plantIdleCacheOnRestart
	// plantBareKillIsKubelets: admission takes a termination request that
	// only a remove of a pod out of config made (a bare kill, noteRemove)
	// for the kubelet's and skips, as the driver did before swarm seed 859
	// (actors_test.go).
	plantBareKillIsKubelets
	// plantNoteEveryRealSyncPod: every SyncPod is noted as one that creates
	// containers, also one whose phase is already terminal (upstream's
	// SyncPod returns isTerminal before it sets anything up), as the
	// driver did before session 24 (swarm-restart seed 1507: K5).
	plantNoteEveryRealSyncPod
	// plantShutdownNeverTriggered: the node shutdown manager is started but
	// never sent its event, so its processing never runs or ends
	// (actors_test.go: the settle phase's L3 for unfinished managers).
	plantShutdownNeverTriggered
	// plantLoseStatus: the status manager never gets the statuses the
	// kubelet's callbacks set (SetPodStatus is skipped; status_test.go:
	// the settle phase's P5).
	plantLoseStatus
	// plantEvictSeesNoPods, plantEvictSeesNoPriority: the eviction manager
	// is handed no active pods, or the active pods without their
	// priorities (actors_test.go: the settle phase's P6).
	plantEvictSeesNoPods
	plantEvictSeesNoPriority
	// plantEvictKeepsPhase: the eviction's kills carry a status function
	// that leaves the phase alone (P6, as plantShutdownKeepsPhase is K5).
	plantEvictKeepsPhase
	// plantReadyTerminal: every terminal status the status manager writes
	// is written again with the pod ready, as a kubelet before upstream's
	// #110256 could send it (status_test.go: K7).
	plantReadyTerminal
	// plantLoseReadiness: the statuses the kubelet's callbacks set carry no
	// readiness conditions, so a running pod never shows ready in the API
	// (status_test.go: the settle phase's P5).
	plantLoseReadiness
	// plantStripDisruption: the API server drops the DisruptionTarget
	// condition from status writes, so an evicted or shut-down pod turns
	// terminal without it (status_test.go: K8).
	plantStripDisruption
	// plantNoDisruption: the eviction's and the node shutdown's kills carry
	// a status function that sets no DisruptionTarget (actors_test.go: K8).
	plantNoDisruption
	// plantLogindLeak, plantLogindGone: with RunOptions.LogindRestart, the
	// fake logind loses the manager's Close of the connection it replaced
	// (as if it leaked it, kubernetes#120613), or refuses every reconnect
	// (logind_test.go: P7).
	plantLogindLeak
	plantLogindGone
	// plantLogindDelayStuck: with RunOptions.LogindDelay, logind never
	// applies the override, so the manager's start times out
	// (logind_delay_test.go: P7).
	plantLogindDelayStuck
)

// plantFires reports whether bug b is planted, has not fired yet, and
// applies to the update o: a kill of a running pod (known, its containers
// may run, termination not requested). It marks the bug fired.
func (d *Driver) plantFires(b plantedBug, o kubelet.UpdatePodOptions) bool {
	if d.opts.plant != b || d.planted || o.Pod == nil || o.UpdateType != kubetypes.SyncPodKill {
		return false
	}
	uid := o.Pod.UID
	if !d.running[uid] || d.pw.IsPodTerminationRequested(uid) || !d.pw.CouldHaveRunningContainers(uid) {
		return false
	}
	d.planted = true
	return true
}
