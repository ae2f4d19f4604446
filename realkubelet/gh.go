package realkubelet

import (
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/kubernetes/pkg/kubelet"
	kubetypes "k8s.io/kubernetes/pkg/kubelet/types"

	"github.com/podsim/podsim/history"
)

// GH's exact predicate (docs/upstream-findings.md, GH): a K5 finding
// "SyncPod began for a pod first added after the node shutdown began" is
// GH iff, at that SyncPod's note,
//   - the pod's ADD came during the shutdown and skipped admission
//     because the pod workers said its termination was requested
//     (HandlePodAdditions admits only when IsPodTerminationRequested is
//     false), and
//   - the request was housekeeping's runtime-only kill of the UID (the
//     runtime's orphan of an earlier incarnation): the UID's latest kill
//     before that ADD was a RunningPod kill, no kill with a pod since.
// The pod was then never admitted: once the runtime pod's termination is
// done, the worker forgets the record and housekeeping starts the desired
// pod (an active pod: no rejection put Failed into its status).

// ghEvidence is what GH's predicate keeps.
type ghEvidence struct {
	// runtimeKill: the UID's latest kill in this process was a
	// runtime-only kill; skipped: the UID's latest ADD during the shutdown
	// skipped admission for that kill's request.
	runtimeKill, skipped map[types.UID]bool
	// classAt is the class of a K5 finding about the SyncPodBegins note
	// with that sequence number (across processes).
	classAt map[int64]string
}

func (g *ghEvidence) reset() {
	g.runtimeKill, g.skipped = map[types.UID]bool{}, map[types.UID]bool{}
	if g.classAt == nil {
		g.classAt = map[int64]string{}
	}
}

// noteKill follows every kill sent to the workers.
func (g *ghEvidence) noteKill(uid types.UID, o kubelet.UpdatePodOptions) {
	if o.UpdateType == kubetypes.SyncPodKill {
		g.runtimeKill[uid] = o.Pod == nil && o.RunningPod != nil
	}
}

// ghAdmitting is called before a fresh ADD's admission: whether the
// admission will be skipped for a runtime-only kill's request during the
// shutdown.
func (d *Driver) ghAdmitting(uid types.UID) bool {
	return d.actors.Shutdown != nil && d.gh.runtimeKill[uid] && d.pw.IsPodTerminationRequested(uid)
}

// ghAdmitted records the outcome of a fresh ADD (admitted: it reached the
// workers; skip: ghAdmitting before it).
func (d *Driver) ghAdmitted(uid types.UID, admitted, skip bool) {
	d.gh.skipped[uid] = admitted && skip
}

// ghSyncPodNoted gives the SyncPodBegins note just made its K5 class.
func (d *Driver) ghSyncPodNoted(uid types.UID) {
	if d.gh.skipped[uid] && d.actors.AddedInShutdown[uid] {
		d.gh.classAt[d.h.Seq] = "GH"
	}
}

// kubeletClass is the class of a kubelet oracle's finding: a K5's is
// GH's if its predicate held at the note; a K2's or K3's the status
// component's (GF, GG); any other's "".
func (d *Driver) kubeletClass(v history.Violation) string {
	if v.Invariant == "K5" {
		return d.gh.classAt[v.Seq]
	}
	if d.st != nil {
		return d.st.Class(v)
	}
	return ""
}
