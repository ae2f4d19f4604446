package realkubelet

import (
	"context"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/kubernetes/pkg/kubelet"
	kubetypes "k8s.io/kubernetes/pkg/kubelet/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/oracle"
	"github.com/podsim/podsim/realkubelet/finding"
	"github.com/podsim/podsim/realkubelet/script"
	"github.com/podsim/podsim/realkubelet/tape"
	"github.com/podsim/podsim/sim"
)

// statusMovePossible: the status component is on, and an echo has
// something to deliver.
func (d *Driver) statusMovePossible(k script.MoveKind) bool {
	if d.st == nil {
		return false
	}
	return k != script.MoveEcho || d.st.Echoes()
}

func (d *Driver) statusMove(m script.Move) {
	switch m.Kind {
	case script.MoveStatusSync:
		d.statusPass(func() { d.st.Sync(false, m.Order) })
	case script.MoveStatusResync:
		d.statusPass(func() { d.st.Sync(true, m.Order) })
	case script.MoveEcho:
		d.deliverEchoes()
	}
}

// statusChoice is Generate's status move for schedule draw r (9 or 10),
// or false: none with the component off, so its schedule is unchanged.
func (d *Driver) statusChoice(r int, schedule sim.Source) (script.Move, bool) {
	switch {
	case d.st == nil:
		return script.Move{}, false
	case r == 9:
		return script.Move{Kind: script.MoveStatusSync, Order: d.passOrder(schedule)}, true
	case r == 10 && d.st.Echoes():
		return script.Move{Kind: script.MoveEcho}, true
	case r == 10:
		return script.Move{Kind: script.MoveStatusResync, Order: d.passOrder(schedule)}, true
	}
	return script.Move{}, false
}

// passOrder draws a status pass's order of its pods' syncs from the
// schedule stream, when two of the pods holding a status share a name
// (their syncs then meet at one API object: kstatus/ordered.go); else nil
// (UID order, no draw, so the schedules of other runs are unchanged).
// Upstream's order is its map's; here the seed chooses it, so both
// outcomes stay reachable, and the script records it.
func (d *Driver) passOrder(schedule sim.Source) []types.UID {
	uids := d.st.Manager().SharedName()
	for i := len(uids) - 1; i > 0; i-- {
		j := schedule.Intn(i + 1)
		uids[i], uids[j] = uids[j], uids[i]
	}
	return uids
}

// settleStatus is a settle round's status part: the periodic pass, the
// echo of what it wrote.
func (d *Driver) settleStatus() {
	if d.st == nil {
		return
	}
	d.Apply(script.Move{Kind: script.MoveStatusResync})
	d.Apply(script.Move{Kind: script.MoveEcho})
}

// statusFindings ends the kubelet oracle: L7 (KubeletSettled) and every
// violation it found (K2, K3, K6, …); none without the component. They
// are unexplained unless an exact predicate of status/explain.go held for
// the write they are about (GF, GG).
func (d *Driver) statusFindings() []finding.Finding {
	if d.st == nil {
		return nil
	}
	d.h.Note(history.KubeletSettled{})
	var out []finding.Finding
	for _, v := range d.st.Kube.Finish(d.View(), nil) {
		out = append(out, finding.Finding{Violation: v, Step: d.stepOf(v.Seq), Class: d.kubeletClass(v)})
	}
	return out
}

// committedOracle is the kubelet oracle as this target feeds it: it keeps
// the committed query answers at every release of the pod lock, which
// this target does not record (the driver holds it for the whole run,
// tape/); between driver steps no worker runs, so the answers now are
// the committed ones, and it is told so just before every note, with the
// answers in the release's Probe (the oracle reads them there).
type committedOracle struct {
	oracle.Oracle
	probe func() *history.Probe
}

func (o committedOracle) Observe(v oracle.View, ev *history.Event) {
	if ev.Kind == history.Noted {
		o.Oracle.Observe(v, &history.Event{Seq: ev.Seq, At: ev.At, Goroutine: "driver", Kind: history.LockReleasing,
			Probe: o.probe()})
	}
	o.Oracle.Observe(v, ev)
}

// deliverEchoes is the config watch: API changes arrive as UPDATE (a new
// phase) or REMOVE (the object left).
func (d *Driver) deliverEchoes() { d.applyEchoes(true) }

// applyEchoes brings config's view of every UID with an echo due up to
// the API; send: as the watch does, telling the pod manager and the pod
// workers (an UPDATE or a REMOVE); else as a restarted kubelet's first
// LIST does, whose pod manager and workers learn the pods at the re-add.
func (d *Driver) applyEchoes(send bool) {
	for _, uid := range d.st.Echoed() {
		d.st.Delivered(uid)
		p := d.pods[uid]
		if p == nil || !p.inConfig || p.action.Static {
			continue
		}
		cur, inAPI := d.st.ByUID(uid)
		switch {
		case !inAPI:
			p.inConfig = false
			if send {
				d.st.Manager().Pods.RemovePod(d.podOf(uid))
				d.update(kubetypes.SyncPodKill, uid)
			}
		case cur.Status.Phase != p.phase:
			p.phase, p.version = cur.Status.Phase, p.version+1
			if send {
				d.st.Manager().Pods.UpdatePod(d.podOf(uid))
				d.update(kubetypes.SyncPodUpdate, uid)
			}
		}
	}
}

// kubeletView is oracle.Kubelet over the status component.
type kubeletView struct{ d *Driver }

func (k kubeletView) UIDs() []types.UID { return k.d.sortedUniverse() }

func (k kubeletView) Pod(uid types.UID) oracle.KubeletPod {
	p := k.d.pods[uid]
	if p == nil {
		return oracle.KubeletPod{}
	}
	a := k.d.actors // admission during a node shutdown (package actors)
	kp := oracle.KubeletPod{Name: p.action.PodName(), InConfig: p.inConfig, Phase: p.phase, Deleted: p.deletion != nil,
		Rejected: a.Rejected[uid], AddedInShutdown: a.AddedInShutdown[uid], FirstAddAt: a.FirstAddAt[uid]}
	k.d.st.Describe(uid, &kp)
	return kp
}

// APIServer: the API-server model is part of the component.
func (kubeletView) APIServer() bool { return true }

// ShutdownAt is the shutdown component's (package actors).
func (k kubeletView) ShutdownAt() time.Duration { return actorsView(k).ShutdownAt() }

// ShuttingDown is the shutdown component's too.
func (k kubeletView) ShuttingDown() bool { return actorsView(k).ShuttingDown() }

// statusHost is the driver as the status component's host.
type statusHost struct{ d *Driver }

func (h statusHost) Tape() *tape.Tape            { return h.d.h }
func (h statusHost) Context() context.Context    { return h.d.ctx }
func (h statusHost) Workers() kubelet.PodWorkers { return h.d.pw }
func (h statusHost) PodOf(uid types.UID) *v1.Pod { return h.d.podOf(uid) }
func (h statusHost) InConfig(uid types.UID) (bool, bool) {
	p := h.d.pods[uid]
	return p != nil, p != nil && p.inConfig
}

// statusPass runs one pass of the status manager (sync) for GI's evidence:
// the pods whose status was terminal before it, and whether the pass
// dropped it while another UID's object held the pod's name.
func (d *Driver) statusPass(sync func()) {
	var terminal []types.UID
	for uid := range d.pods {
		if d.st.ManagerPhaseTerminal(uid) {
			terminal = append(terminal, uid)
		}
	}
	d.k5.StatusPass(terminal, sync, func(uid types.UID) bool {
		_, kept := d.st.Manager().GetPodStatus(uid)
		return !kept && d.st.NameHeldByOther(d.podOf(uid))
	})
	for _, j := range d.st.Judged() {
		d.report("kubelet", j.Invariant, "", j.Message)
	}
}
