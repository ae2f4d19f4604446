package realkubelet

import (
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/oracle"
	"github.com/podsim/podsim/realkubelet/script"
)

// statusMovePossible: the status component is on, and an echo has
// something to deliver.
func (d *Driver) statusMovePossible(k script.MoveKind) bool {
	if d.st == nil {
		return false
	}
	return k != script.MoveEcho || d.st.echoes()
}

func (d *Driver) statusMove(k script.MoveKind) {
	switch k {
	case script.MoveStatusSync:
		d.st.sync(false)
	case script.MoveStatusResync:
		d.st.sync(true)
	case script.MoveEcho:
		d.st.deliverEchoes()
	}
}

// statusChoice is Generate's status move for schedule draw r (9 or 10),
// or false: none with the component off, so its schedule is unchanged.
func (d *Driver) statusChoice(r int) (script.Move, bool) {
	switch {
	case d.st == nil:
		return script.Move{}, false
	case r == 9:
		return script.Move{Kind: script.MoveStatusSync}, true
	case r == 10 && d.st.echoes():
		return script.Move{Kind: script.MoveEcho}, true
	case r == 10:
		return script.Move{Kind: script.MoveStatusResync}, true
	}
	return script.Move{}, false
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
// are unexplained unless an exact predicate of status_explain.go held for
// the write they are about (GF, GG).
func (d *Driver) statusFindings() []Finding {
	if d.st == nil {
		return nil
	}
	d.h.Note(history.KubeletSettled{})
	var out []Finding
	for _, v := range d.st.kube.Finish(d.View(), nil) {
		f := Finding{Violation: v, Step: d.stepOf(v.Seq)}
		d.st.classify(&f)
		out = append(out, f)
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

func (o committedOracle) Observe(v oracle.View, ev history.Event) {
	if ev.Kind == history.Noted {
		o.Oracle.Observe(v, history.Event{Seq: ev.Seq, At: ev.At, Goroutine: "driver", Kind: history.LockReleasing,
			Probe: o.probe()})
	}
	o.Oracle.Observe(v, ev)
}

// kubeletView is oracle.Kubelet over the status component.
type kubeletView struct{ s *statusComp }

func (k kubeletView) UIDs() []types.UID { return k.s.d.sortedUniverse() }

func (k kubeletView) Pod(uid types.UID) oracle.KubeletPod {
	s := k.s
	p := s.d.pods[uid]
	if p == nil {
		return oracle.KubeletPod{}
	}
	a := s.d.actors // admission during a node shutdown (actors.go)
	kp := oracle.KubeletPod{Name: p.action.PodName(), Incarnation: s.incarnation[uid], InConfig: p.inConfig,
		Phase: p.phase, Deleted: p.deletion != nil, Admitted: s.admitted[uid] && !a.rejected[uid], DeletedAt: s.deletedAt[uid],
		Rejected: a.rejected[uid], AddedInShutdown: a.addedInShutdown[uid], FirstAddAt: a.firstAddAt[uid]}
	if st, ok := s.mgr.GetPodStatus(uid); ok {
		kp.StatusPhase = st.Phase
	}
	if cur, ok := s.api.ByUID(uid); ok {
		kp.InAPI, kp.APIPhase = true, cur.Status.Phase
		kp.Deleted = cur.DeletionTimestamp != nil
	}
	return kp
}

// APIServer: the API-server model is part of the component.
func (kubeletView) APIServer() bool { return true }

// ShutdownAt is the shutdown component's (actors.go).
func (k kubeletView) ShutdownAt() time.Duration { return actorsView{k.s.d}.ShutdownAt() }
