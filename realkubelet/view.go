package realkubelet

import (
	"maps"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/oracle"
	"github.com/podsim/podsim/realkubelet/explain"
)

// View is the driver as an oracle.View: what the shared oracles may read
// of this target besides its events. It offers the pod workers' query
// answers and the config source; the rest of the View does not exist here:
//
//   - Settle is nil: the driver has no settle phase of the world's shape
//     (heal, settle, quiesce, drain), so the shared liveness oracle, which
//     judges at Settled from the history, is not run; the driver checks
//     liveness itself through the public queries (checkSettled).
//   - Kubelet is nil: this target drives the pod workers alone, with no
//     API server, admission, status manager or shutdown manager, so the
//     kubelet-level checks (package kubelet) do not apply.
func (d *Driver) View() oracle.View { return driverView{d} }

type driverView struct{ d *Driver }

// Settle is nil: see View.
func (driverView) Settle() *oracle.Settle { return nil }

// Kubelet is the kubelet around the workers: the status component's view
// (status_view.go) with it on, else the managers' (kview.go) with the
// shutdown or eviction component on; nil otherwise: see View.
func (v driverView) Kubelet() oracle.Kubelet {
	if v.d.st != nil {
		return kubeletView(v)
	}
	return v.d.kubelet()
}

// Elapsed is the bubble's virtual time since the driver was made.
func (v driverView) Elapsed() time.Duration { return v.d.h.Elapsed() }

// Config is what the driver's config source says of uid now.
func (v driverView) Config(uid types.UID) oracle.PodConfig {
	p := v.d.pods[uid]
	if p == nil {
		return oracle.PodConfig{}
	}
	return oracle.PodConfig{InConfig: p.inConfig, Deleted: p.deletion != nil, Static: p.action.Static,
		FullName: v.d.podOf(uid).Name + "_default", Terminal: p.phase == v1.PodSucceeded || p.phase == v1.PodFailed}
}

// Probe is what the real pod workers' public query methods answer now
// (Driver.answersOf) for every UID any move named, with Known as
// workersView says, for a history.Event.Probe: between driver steps nothing
// runs, so that is the state every critical section so far left.
func (d *Driver) Probe() *history.Probe {
	w := workersView{d}
	p := &history.Probe{PodsSynced: w.PodsSynced()}
	names := map[string]bool{}
	for _, uid := range d.sortedUniverse() {
		p.Pods = append(p.Pods, history.PodAnswers{UID: uid, Answers: w.Answers(uid)})
		names[d.podOf(uid).Name+"_default"] = true
	}
	for _, f := range slices.Sorted(maps.Keys(names)) {
		p.Mirror = append(p.Mirror, history.MirrorAnswer{FullName: f, Terminating: w.MirrorTerminating(f)})
	}
	return p
}

// workersView answers through the real pod workers' public queries.
// They have no query for "has a record" nor for podsSynced, so:
//
//   - PodsSynced is the driver's own bookkeeping: a recorded SyncKnownPods
//     returned (upstream sets podsSynced in SyncKnownPods, never clears it).
//   - Known is read from the answers: a UID is known unless it answers
//     exactly what SPEC §1.14 U1 says an unknown UID answers. After the
//     first SyncKnownPods no record answers so; before it, a record not yet
//     asked to terminate answers like an unknown UID (CouldHaveRunning
//     only), so it is not known here until it is.
//   - KnownUIDs are the UIDs any move named that are known in that sense.
type workersView struct{ d *Driver }

func (w workersView) KnownUIDs() []string {
	var out []string
	for _, uid := range w.d.sortedUniverse() {
		if w.Answers(uid).Known {
			out = append(out, string(uid))
		}
	}
	return out
}

func (w workersView) Answers(uid types.UID) oracle.Answers {
	a := w.d.answersOf(uid)
	return oracle.Answers{Known: a != unknownAnswers(w.d.synced), KnownTerminated: a[explain.KnownTerminated],
		CouldHaveRunning: a[explain.CouldHaveRunning], BeFinished: a[explain.BeFinished], TerminationRequested: a[explain.TermRequested],
		ContainersBeTerminating: a[explain.ContainersBeTerminating], RuntimeBeRemoved: a[explain.RuntimeBeRemoved],
		ContentBeRemoved: a[explain.ContentBeRemoved]}
}

func (w workersView) PodsSynced() bool { return w.d.synced }

func (w workersView) MirrorTerminating(fullname string) bool {
	return w.d.pw.IsPodForMirrorPodTerminatingByFullName(fullname)
}

// unknownAnswers is what every query says of a UID without a record
// (SPEC §1.14 U1): before the first SyncKnownPods, CouldHaveRunning only;
// after it, explain.UnknownAfterSync.
func unknownAnswers(synced bool) explain.Answers {
	if synced {
		return explain.UnknownAfterSync
	}
	return explain.Answers{explain.CouldHaveRunning: true}
}
