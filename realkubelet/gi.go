package realkubelet

import "k8s.io/apimachinery/pkg/types"

// GI's exact predicate (docs/upstream-findings.md, GI): a K5 finding
// "SyncPod began for a pod first added after the node shutdown began" that
// GH does not take is GI iff, at that SyncPod's note,
//   - the pod's latest ADD came during the shutdown and skipped admission
//     because the pod workers said its termination was requested, and the
//     request was a kill with the pod (the UID's latest kill before that
//     ADD: HandlePodRemoves' kill when the pod left config), and
//   - after the pod's latest rejection at admission (rejectPod's Failed
//     status, the one thing that keeps it out of the active pods), a pass
//     of the status manager dropped that terminal status while the API
//     server held, under the pod's namespace and name, a pod of another
//     UID: the status manager's syncPod fetches the object by name, takes
//     the other UID for a re-creation ("Pod was deleted and then
//     recreated") and deletes the status.
// Housekeeping then forgets the UID's finished record and, the pod being
// active, starts it during the shutdown without its ever being admitted.

// giEvidence is what GI's predicate keeps.
type giEvidence struct {
	// skipped: the UID's latest ADD during the shutdown skipped admission
	// for a kill with the pod; dropped: the status manager dropped the
	// UID's terminal status for another UID's object under its name since
	// its latest rejection.
	skipped, dropped map[types.UID]bool
}

func (g *giEvidence) reset() {
	g.skipped, g.dropped = map[types.UID]bool{}, map[types.UID]bool{}
}

// giAdmitting is called before a fresh ADD's admission: whether the
// admission will be skipped during the shutdown for a kill with the pod.
func (d *Driver) giAdmitting(uid types.UID) bool {
	runtimeOnly, killed := d.gh.runtimeKill[uid]
	return d.actors.Shutdown != nil && killed && !runtimeOnly && d.pw.IsPodTerminationRequested(uid)
}

// giAdmitted records the outcome of a fresh ADD (skip: giAdmitting before
// it); a rejection puts a new Failed status in, so nothing is dropped yet.
func (d *Driver) giAdmitted(uid types.UID, admitted, skip bool) {
	d.gi.skipped[uid] = admitted && skip
	if !admitted {
		d.gi.dropped[uid] = false
	}
}

// giStatusPass runs one status pass (sync) and records the terminal
// statuses it dropped while another UID's object held the pod's name. The
// checks after the pass only read (the API server's Get copies), and the
// evidence is a set, so the order of terminal, a map's, reaches nothing.
func (d *Driver) giStatusPass(sync func()) {
	var terminal []types.UID
	for uid := range d.pods {
		if d.st.ManagerPhaseTerminal(uid) {
			terminal = append(terminal, uid)
		}
	}
	sync()
	for _, uid := range terminal {
		if _, kept := d.st.Manager().GetPodStatus(uid); !kept && d.st.NameHeldByOther(d.podOf(uid)) {
			d.gi.dropped[uid] = true
		}
	}
}

// giSyncPodNoted gives the SyncPodBegins note just made its K5 class, if
// GH's did not.
func (d *Driver) giSyncPodNoted(uid types.UID) {
	if _, gh := d.gh.classAt[d.h.Seq]; gh {
		return
	}
	if d.gi.skipped[uid] && d.gi.dropped[uid] && d.actors.AddedInShutdown[uid] {
		d.gh.classAt[d.h.Seq] = "GI"
	}
}
