package conform

import (
	"fmt"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/plan"
)

// judge checks one finished plan action (P1, P2, P4). An action a kubelet
// restart overlapped is judged only if it is the restart itself: the
// calls of the others may have gone to the old process's pod workers.
func (c *checker) judge(x *action) {
	a, p := x.a, x.pre
	for _, cl := range x.calls {
		if _, wait := cl.in.(ops.KillPodNowDone); !cl.returned && !wait {
			c.violate("P1", "%v: its call %v never returned", a, cl.in)
		}
	}
	switch a.Kind {
	case plan.Create:
		c.create(x)
	case plan.Update:
		c.expect(x, p.toWorkers() && !p.refused && !c.reAddRejected(x), ops.Update, true, a.KillOpts)
	case plan.Sync:
		c.expect(x, p.toWorkers() && !c.reAddRejected(x), ops.Sync, false, a.KillOpts)
	case plan.Delete:
		c.delete(x)
	case plan.Remove:
		c.expect(x, p.added(), ops.Kill, false, false)
	case plan.Vanish, plan.Evict, plan.Shutdown, plan.ShutdownCancel:
		c.expect(x, false, 0, false, false)
	case plan.Kill:
		c.expect(x, p.toWorkers(), ops.Kill, false, true)
	case plan.RuntimeKill: // housekeeping's: never for a UID a pod in config has
		c.expect(x, p.toWorkers() && !(p.kube && p.inConfig), ops.Kill, false, true)
	case plan.KillNow:
		c.killNow(x)
	case plan.Finish:
		c.expect(x, p.toWorkers(), ops.Update, true, false)
	case plan.Query:
		c.query(x)
	case plan.SyncKnown:
		c.syncKnownAction(x)
	case plan.Restart:
		c.restart(x)
	}
}

// updates are the UpdatePod calls the action made, in the action's buffer,
// rebuilt by each call (the same list while its calls stay the same).
func (x *action) updates() []ops.UpdatePod {
	out := x.ups[:0]
	for _, cl := range x.calls {
		if u, ok := cl.in.(ops.UpdatePod); ok {
			out = append(out, u)
		}
	}
	x.ups = out
	return out
}

// expect: the action makes exactly one UpdatePod of type t for its pod if
// send, none otherwise (P1), and that call carries what the action says.
// newVersion: the call must carry a pod version newer than any handed to
// the pod workers before (a config change is a new pod object); kill: it
// carries the action's kill options (else none).
func (c *checker) expect(x *action, send bool, t ops.UpdateType, newVersion, kill bool) {
	ups := x.updates()
	want := 0
	if send {
		want = 1
	}
	if len(ups) != want {
		c.violate("P1", "%v made %d UpdatePod call(s), want %d (%s)", x.a, len(ups), want, x.pre)
		return
	}
	if send {
		c.carries(x, ups[0], t, newVersion, kill)
	}
}

// carries checks what one UpdatePod of the action carries (P1).
func (c *checker) carries(x *action, u ops.UpdatePod, t ops.UpdateType, newVersion, kill bool) {
	a := x.a
	shape := c.shapeOf(a)
	var bad []string
	if u.Type != t {
		bad = append(bad, fmt.Sprintf("type %v, want %v", u.Type, t))
	}
	if u.Pod.UID != string(a.UID) {
		bad = append(bad, fmt.Sprintf("pod %q, want %q", u.Pod.UID, a.UID))
	}
	runtimeOnly := a.Target == plan.TargetRunningPod || a.Kind == plan.RuntimeKill
	if u.RuntimeOnly != runtimeOnly {
		bad = append(bad, fmt.Sprintf("runtime-only %v, want %v", u.RuntimeOnly, runtimeOnly))
	}
	if !u.RuntimeOnly {
		if !isPodName(u.Pod.Name, shape) || u.Pod.Static != shape.Static || u.Pod.SpecGrace != shape.SpecGrace {
			bad = append(bad, fmt.Sprintf("pod %s/static=%v/grace=%d, want %s/static=%v/grace=%d", u.Pod.Name,
				u.Pod.Static, u.Pod.SpecGrace, shape.PodName(), shape.Static, shape.SpecGrace))
		}
		if newVersion && u.Pod.Version <= x.version {
			bad = append(bad, fmt.Sprintf("version %d, not newer than %d", u.Pod.Version, x.version))
		}
		if a.Kind == plan.Create && !x.pre.known && u.Pod.Phase != firstPhase(a, x.pre.kube) {
			bad = append(bad, fmt.Sprintf("phase %v, want %v", u.Pod.Phase, firstPhase(a, x.pre.kube)))
		}
		if a.Kind == plan.Finish && u.Pod.Phase.String() != a.Terminal {
			bad = append(bad, fmt.Sprintf("phase %v, want %s", u.Pod.Phase, a.Terminal))
		}
	}
	if msg := killMismatch(a, u.Kill, kill); msg != "" {
		bad = append(bad, msg)
	}
	if len(bad) > 0 {
		c.violate("P1", "%v: its UpdatePod carries %v", a, bad)
	}
}

// isPodName reports whether name is a's pod's name (plan.Action.PodName),
// told without building the name: every UpdatePod of a plan action asks.
func isPodName(name string, a plan.Action) bool {
	if a.Name != "" {
		return name == a.Name
	}
	rest, ok := strings.CutPrefix(name, "pod-")
	return ok && rest == string(a.UID)
}

// killMismatch compares the kill options an UpdatePod carries with those
// of action a ("" if they agree): none unless kill; else a completion
// (Kill, KillNow and KillOpts carry one), Evict and the grace override as
// the action gives them (a runtime-only kill by housekeeping: grace 1).
func killMismatch(a plan.Action, got ops.KillOptions, kill bool) string {
	want := ops.KillOptions{}
	if kill {
		want.Evict = a.Evict
		if a.Grace >= 0 {
			want.GraceOverride, want.HasGraceOverride = a.Grace, true
		}
		if a.Kind == plan.RuntimeKill {
			want = ops.KillOptions{GraceOverride: 1, HasGraceOverride: true}
		}
	}
	gotCompletion := got.CompletionID != 0
	wantCompletion := kill && a.Kind != plan.RuntimeKill
	got.CompletionID = 0
	if got != want || gotCompletion != wantCompletion {
		return fmt.Sprintf("kill options %+v (completion %v), want %+v (completion %v)", got, gotCompletion, want,
			wantCompletion)
	}
	return ""
}

// create is a Create's ADD (P1, P2): refused by the API server, nothing;
// an ADD of a pod still in config is an UPDATE for an admitted pod;
// otherwise admission, and a create iff it admits.
func (c *checker) create(x *action) {
	a, p := x.a, x.pre
	switch {
	case p.refused:
		c.expect(x, false, 0, false, false)
		return
	case p.kube && p.inConfig:
		c.expect(x, p.admitted, ops.Update, false, false)
		return
	case !p.kube || p.admitted:
		c.expect(x, true, ops.Create, true, a.KillOpts)
		return
	}
	adm, ok := x.admitted()
	if x.admissionUnbegun {
		c.violate("P2", "%v: admission decided without AdmissionBegins", a)
	}
	switch {
	case p.shutdown && ok:
		c.violate("P2", "%v: admitted during the node shutdown", a)
	case !p.shutdown && !ok:
		c.violate("P2", "%v: a new pod object was added without admission", a)
	case !ok:
		c.expect(x, false, 0, false, false)
		c.sm.held[a.UID] = phases{v1.PodFailed} // rejected: a local Failed status
	default:
		fits := c.fits(a, adm.Counted)
		if !fits {
			c.expect(x, false, 0, false, false)
		} else {
			c.expect(x, true, ops.Create, true, a.KillOpts)
		}
	}
}

// admitted is the admission note the action made, if any (and whether
// AdmissionBegins came before it, as K1 needs).
func (x *action) admitted() (history.Admitted, bool) {
	begun := false
	for _, n := range x.notes {
		switch n := n.(type) {
		case history.AdmissionBegins:
			begun = true
		case history.Admitted:
			x.admissionUnbegun = x.admissionUnbegun || !begun
			return n, true
		}
	}
	return history.Admitted{}, false
}

// fits: a's requests plus the counted pods' fit the node (P2). A pod's
// requests are those of the action it was first seen with.
func (c *checker) fits(a plan.Action, counted []types.UID) bool {
	shape := c.shapeOf(a)
	cpu, mem := shape.CPU, shape.Mem
	for _, uid := range counted {
		s := c.first(uid)
		cpu, mem = cpu+s.CPU, mem+s.Mem
	}
	return c.plan.Node.Fits(cpu, mem)
}

// delete is a client's graceful delete (P1): none for a static pod's
// mirror or a refused one; with an API server the request is noted with
// its grace; the pod workers get an update with the deletion timestamp
// and grace if the kubelet admitted the pod.
func (c *checker) delete(x *action) {
	a, p := x.a, x.pre
	if p.refused || p.kube && c.shapeOf(a).Static {
		c.expect(x, false, 0, false, false)
		return
	}
	g := max(a.Grace, 0)
	requested := false
	for _, n := range x.notes {
		if d, ok := n.(history.DeleteRequested); ok && d.UID == a.UID && d.Grace == g {
			requested = true
		}
	}
	if requested != (p.kube && p.apiServer) {
		c.violate("P1", "%v: delete request noted %v, want %v", a, requested, p.kube && p.apiServer)
	}
	send := p.toWorkers() && !c.reAddRejected(x)
	c.expect(x, send, ops.Update, true, false)
	if ups := x.updates(); send && len(ups) == 1 {
		if u := ups[0].Pod; !u.DeletionTimestamp || !u.HasDeletionGrace || u.DeletionGrace != g {
			c.violate("P1", "%v: its update carries deletion %v grace %d, want grace %d", a, u.DeletionTimestamp,
				u.DeletionGrace, g)
		}
	}
}

// reAddRejected (P1): a config change (an update, sync or delete) of a
// pod the kubelet admitted, made while the pod is out of config and a node
// shutdown is under way, is upstream's ADD (the config merge adds a pod it
// does not have), which admission rejects unless the pod's phase is
// terminal or the pod workers say its termination is requested
// (HandlePodAdditions skips admission then). Such a change must ask
// IsPodTerminationRequested once; it is rejected (reaches no pod worker)
// iff the answer was false. Call it only for a change that would
// otherwise be sent.
func (c *checker) reAddRejected(x *action) bool {
	p := x.pre
	if !p.kube || p.inConfig || !p.shutdown || !p.admitted || terminal(p.phase) {
		return false
	}
	asked, requested := 0, false
	for _, cl := range x.calls {
		if q, ok := cl.in.(ops.Query); ok && q.Kind == ops.IsPodTerminationRequested && q.UID == string(x.a.UID) {
			asked++
			requested = cl.out == ops.Answer(true)
		}
	}
	if asked != 1 {
		c.violate("P1", "%v: a change of a pod out of config during the node shutdown asked IsPodTerminationRequested %d time(s), want 1 (%s)",
			x.a, asked, p)
	}
	return !requested
}

// killNow is KillPodNow (P1): its kill, then its wait for the same
// completion.
func (c *checker) killNow(x *action) {
	c.expect(x, x.pre.toWorkers(), ops.Kill, false, true)
	ups := x.updates()
	if !x.pre.toWorkers() || len(ups) != 1 {
		return
	}
	for _, cl := range x.calls {
		if w, ok := cl.in.(ops.KillPodNowDone); ok && w.UID == string(x.a.UID) && w.ID == ups[0].Kill.CompletionID {
			return
		}
	}
	c.violate("P1", "%v: no wait for its kill's completion", x.a)
}

// query reads every query of the pod, in order, and a static pod's
// mirror-pod query by full name (P1).
func (c *checker) query(x *action) {
	want := c.queryBuf[:0]
	defer func() { c.queryBuf = want[:0] }() // the messages below copy what they print
	for k := ops.IsPodKnownTerminated; k <= ops.ShouldPodContentBeRemoved; k++ {
		want = append(want, ops.Query{Kind: k, UID: string(x.a.UID)})
	}
	if shape := c.shapeOf(x.a); shape.Static {
		want = append(want, ops.Query{Kind: ops.IsPodForMirrorPodTerminatingByFullName,
			FullName: shape.PodName() + "_default"})
	}
	got := c.gotBuf[:0]
	defer func() { c.gotBuf = got[:0] }()
	for _, cl := range x.calls {
		q, ok := cl.in.(ops.Query)
		if !ok {
			c.violate("P1", "%v made a call other than a query: %T", x.a, cl.in)
			return
		}
		got = append(got, q)
		if _, ok := cl.out.(ops.Answer); !ok {
			c.violate("P1", "%v: query %v returned %v, not an answer", x.a, q, cl.out)
		}
	}
	if !slices.Equal(got, want) {
		c.violate("P1", "%v asked %v, want %v", x.a, got, want)
	}
}

// restart is a kubelet restart (P4): a Restarted event, then every pod in
// config ADDed again in creation order, each through admission or as a
// create — except that a kubelet restarted during a node shutdown may
// reject, as a shutdown's admission does, the pods first added in it.
func (c *checker) restart(x *action) {
	if x.restarts == c.restarts {
		c.violate("P4", "%v: the kubelet did not restart", x.a)
		return
	}
	handled, admitted := map[types.UID]bool{}, map[types.UID]bool{}
	for _, n := range x.notes {
		if adm, ok := n.(history.Admitted); ok {
			handled[adm.UID], admitted[adm.UID] = true, true
		}
	}
	var order []types.UID
	for _, u := range x.updates() {
		uid := types.UID(u.Pod.UID)
		if u.Type == ops.Create {
			handled[uid] = true
			order = append(order, uid)
		}
	}
	for _, uid := range x.pre.inConfigUIDs {
		switch {
		case !handled[uid] && x.inShutdown[uid]:
			c.sm.held[uid] = phases{v1.PodFailed} // rejected: a local Failed status
		case !handled[uid]:
			c.violate("P4", "%v: %s, in config, was not added again", x.a, uid)
		case x.pre.kube && !admitted[uid] && !terminal(x.phases[uid]):
			// A new kubelet admits every pod again, except those whose
			// phase is terminal.
			c.violate("P4", "%v: %s was added again without admission", x.a, uid)
		}
	}
	if x.incarnation != nil && !slices.IsSortedFunc(order, func(a, b types.UID) int { return x.incarnation[a] - x.incarnation[b] }) {
		c.violate("P4", "%v: the pods were added again out of creation order: %v", x.a, order)
	}
}

func (p pre) String() string {
	return fmt.Sprintf("kubelet=%v known=%v in-config=%v admitted=%v rejected=%v refused=%v", p.kube, p.known,
		p.inConfig, p.admitted, p.rejected, p.refused)
}

// firstPhase is the phase of a new pod's object: Pending if its Create
// says so (a kubelet's ADD of a new pod object starts it Running).
func firstPhase(a plan.Action, kube bool) ops.Phase {
	if a.Pending && !kube {
		return ops.PhasePending
	}
	return ops.PhaseRunning
}

// syncKnownAction: a SyncKnown action is housekeeping's SyncKnownPods (its
// argument and restarts are P3's, judged for every caller).
func (c *checker) syncKnownAction(x *action) {
	n := 0
	for _, cl := range x.calls {
		if _, ok := cl.in.(ops.SyncKnownPods); ok {
			n++
		}
	}
	if n != 1 {
		c.violate("P3", "%v made %d SyncKnownPods call(s), want 1", x.a, n)
	}
}
