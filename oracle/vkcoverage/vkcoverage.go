// Package vkcoverage records the abstract states a virtual-kubelet run
// passed through: per pod, a tuple of the pod controller's observable
// situation at each VK note about the pod (and at each change of the
// controller's life), and the transitions between a pod's consecutive
// tuples. It reads the VK notes alone (history/notes_vk.go), as the VK
// oracle does, never the target: it works on every target that records
// them. It judges nothing; the guided strategy keeps the runs that reach
// tuples or transitions no earlier run reached (oracle/coverage holds the
// kubelet's tuple, the Coverage type and the Recorder both share).
//
// A tuple has nine fields, separated by '|':
//
//	api       the pod's API object: - (none: a provider-only pod), live,
//	          del (it has a deletion timestamp), gone (removed)
//	name      shared while another UID with the same name is in the API or
//	          the provider (a re-created pod meets its predecessor), else -
//	provider  the pod in the provider: - (never there), in, gone (deleted
//	          from it); "+del" once the provider set a deletion timestamp
//	notified  the phase of the provider's newest notification: - none,
//	          P R S F (Pending Running Succeeded Failed), ? another
//	status    what the API's status holds against the provider's newest
//	          notification: - (neither has one), own (a status the controller
//	          wrote, nothing notified), cur (the same version), edit (another
//	          writer's edit stands), behind (another version)
//	write     the newest failed status write since the last that landed:
//	          - none, conflict, notfound, transient (invalid too on the
//	          real controller, module realvk), with "x2" after two or
//	          more failures in a row
//	last      the pod's newest note: created, delreq-client,
//	          delreq-controller, removed-client, removed-controller
//	          ("!pre" when the removal carried no precondition of its own
//	          UID), written, failed, edited, pcreated, pdeleted, notified;
//	          or a provider call's error answer, "p" + call + "-" + answer
//	          (pdelete-notfound, pcreate-invalid, pget-error, …), where the
//	          target reports them (Answered; the real controller's, module
//	          realvk)
//	epoch     the controller's life: - (not started), start (Run called,
//	          not Ready), ready, cancel (cancelled, Done not closed), done
//	          (Done closed; "!err" with a non-nil Err), with "+restarted"
//	          from the second start on
//	acted     acted once the controller created, deleted, removed or wrote
//	          the status of the pod in its current epoch, else -
//
// The controller's life is not about a pod, so a change of it is recorded
// as a visit of every pod still in the API or in the provider: the
// transitions show what each pod was when the controller started, became
// Ready, or was cancelled.
package vkcoverage

import (
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/oracle/coverage"
)

// pod is what the tracker knows of one UID.
type pod struct {
	name        string
	api         string // - live del gone
	provider    string // - in gone
	providerDel bool   // the provider set a deletion timestamp
	notified    string // phase letter of the newest notification, - none
	lastVersion int    // the newest notification's version
	apiVersion  int    // the provider status version the API's status holds
	written     bool   // a status write of the controller landed
	edited      bool   // another writer's edit stands
	writeErr    string // the newest failed write's error, - none
	failures    int    // failed writes in a row
	lastNote    string
	acted       bool
	last        int // its last tuple's handle in Tracker.rec, 0 before the first
}

// Tracker is the observer: New, then Observe every event, then Coverage.
type Tracker struct {
	pods    map[types.UID]*pod
	order   []types.UID // UIDs in order of first sight
	epoch   int         // the newest start's epoch, 0 before the first
	life    string      // - start ready cancel done
	doneErr bool        // the newest Done closed with a non-nil Err
	rec     *coverage.Recorder
	buf     []byte // visit's tuple, built in place
}

// New returns an empty tracker.
func New() *Tracker {
	return &Tracker{pods: map[types.UID]*pod{}, life: "-", rec: coverage.NewRecorder()}
}

func (t *Tracker) pod(uid types.UID) *pod {
	p := t.pods[uid]
	if p == nil {
		p = &pod{api: "-", provider: "-", notified: "-", writeErr: "-", lastNote: "-"}
		t.pods[uid] = p
		t.order = append(t.order, uid)
	}
	return p
}

// Observe follows one event: the VK notes; every other event is ignored.
func (t *Tracker) Observe(ev *history.Event) {
	if ev.Kind != history.Noted {
		return
	}
	if t.controller(ev.Note) {
		for _, uid := range t.order {
			if p := t.pods[uid]; p.api == "live" || p.api == "del" || p.provider == "in" {
				t.visit(p)
			}
		}
		return
	}
	if uid, ok := t.note(ev.Note); ok {
		t.visit(t.pods[uid])
	}
}

// controller follows the controller's life; it reports whether n was one
// of its notes.
func (t *Tracker) controller(n history.Note) bool {
	switch n := n.(type) {
	case history.VKStarted:
		t.epoch, t.life, t.doneErr = n.Epoch, "start", false
		for _, uid := range t.order {
			t.pods[uid].acted = false
		}
	case history.VKReady:
		t.life = "ready"
	case history.VKCancelled:
		t.life = "cancel"
	case history.VKDone:
		t.life, t.doneErr = "done", n.Err != ""
	default:
		return false
	}
	return true
}

// running reports whether a controller is between its start and Done.
func (t *Tracker) running() bool { return t.life == "start" || t.life == "ready" || t.life == "cancel" }

// note applies one note about a pod and returns its UID.
func (t *Tracker) note(n history.Note) (types.UID, bool) {
	switch n := n.(type) {
	case history.VKCreated:
		p := t.pod(n.UID)
		p.name, p.api, p.lastNote = n.Name, "live", "created"
		return n.UID, true
	case history.VKDeleteRequested:
		p := t.pod(n.UID)
		if p.api != "gone" {
			p.api = "del"
		}
		p.lastNote = "delreq-" + n.By
		p.acted = p.acted || n.By == "controller"
		return n.UID, true
	case history.VKRemoved:
		p := t.pod(n.UID)
		p.api, p.lastNote = "gone", "removed-"+n.By
		if n.By == "controller" {
			p.acted = true
			if n.Precondition != n.UID {
				p.lastNote += "!pre"
			}
		}
		return n.UID, true
	case history.VKStatusWritten:
		p := t.pod(n.UID)
		p.apiVersion, p.written, p.edited, p.writeErr, p.failures = n.Version, true, false, "-", 0
		p.lastNote, p.acted = "written", true
		return n.UID, true
	case history.VKStatusWriteFailed:
		p := t.pod(n.UID)
		p.writeErr, p.lastNote, p.acted = strings.ReplaceAll(n.Err, " ", ""), "failed", true
		p.failures++
		return n.UID, true
	case history.VKEdited:
		p := t.pod(n.UID)
		p.apiVersion, p.edited, p.lastNote = 0, true, "edited"
		return n.UID, true
	}
	return t.providerNote(n)
}

// providerNote applies one note of the provider's and returns its UID.
func (t *Tracker) providerNote(n history.Note) (types.UID, bool) {
	switch n := n.(type) {
	case history.VKProviderCreated:
		p := t.pod(n.UID)
		p.provider, p.lastNote = "in", "pcreated"
		// Before a start (or after Done) the provider already ran it.
		p.acted = p.acted || t.running()
		return n.UID, true
	case history.VKProviderDeleted:
		p := t.pod(n.UID)
		p.provider, p.lastNote = "gone", "pdeleted"
		p.providerDel = p.providerDel || n.ByProvider
		p.acted = p.acted || !n.ByProvider
		return n.UID, true
	case history.VKNotified:
		p := t.pod(n.UID)
		p.notified, p.lastVersion, p.lastNote = phaseLetter(n.Phase), n.Version, "notified"
		p.providerDel = p.providerDel || n.Deleting
		return n.UID, true
	}
	return "", false
}

// Answered records a provider call about uid that returned an error: call
// is the call and its answer, "delete-notfound", "create-error", …. It
// becomes the pod's newest note ("p" + call), as a failed status write
// does. The notes carry no provider answers, so only a target that sees
// the calls reports them (module realvk); the simulated VK world does
// not, and its tuples are as they were. What the controller does next
// depends on the answer (a deletion answered not-found goes on to remove
// the API object), so an answer is a situation of its own.
func (t *Tracker) Answered(uid types.UID, call string) {
	p := t.pod(uid)
	p.lastNote = "p" + call
	t.visit(p)
}

// visit records p's tuple now, and the transition to it.
func (t *Tracker) visit(p *pod) {
	t.buf = t.appendTuple(t.buf[:0], p)
	p.last = t.rec.Visit(p.last, t.buf)
}

// appendTuple appends p's tuple to b:
// api|name|provider|notified|status|write|last|epoch|acted.
func (t *Tracker) appendTuple(b []byte, p *pod) []byte {
	b = append(append(b, p.api...), '|')
	b = append(append(b, t.nameField(p)...), '|')
	b = append(b, p.provider...)
	if p.providerDel {
		b = append(b, "+del"...)
	}
	b = append(append(append(b, '|'), p.notified...), '|')
	b = append(append(b, statusField(p)...), '|')
	b = append(b, p.writeErr...)
	if p.failures > 1 {
		b = append(b, "x2"...)
	}
	b = append(append(append(b, '|'), p.lastNote...), '|')
	b = append(b, t.life...)
	if t.life == "done" && t.doneErr {
		b = append(b, "!err"...)
	}
	if t.epoch > 1 {
		b = append(b, "+restarted"...)
	}
	if p.acted {
		return append(b, "|acted"...)
	}
	return append(b, "|-"...)
}

// nameField is "shared" while another UID of p's name is in the API or
// the provider.
func (t *Tracker) nameField(p *pod) string {
	if p.name == "" {
		return "-"
	}
	for _, uid := range t.order {
		q := t.pods[uid]
		if q != p && q.name == p.name && (q.api == "live" || q.api == "del" || q.provider == "in") {
			return "shared"
		}
	}
	return "-"
}

// statusField compares the API's status with the provider's newest
// notification.
func statusField(p *pod) string {
	switch {
	case p.edited:
		return "edit"
	case p.notified == "-" && p.written:
		return "own"
	case p.notified == "-":
		return "-"
	case p.apiVersion == p.lastVersion:
		return "cur"
	}
	return "behind"
}

func phaseLetter(phase v1.PodPhase) string {
	switch phase {
	case v1.PodPending:
		return "P"
	case v1.PodRunning:
		return "R"
	case v1.PodSucceeded:
		return "S"
	case v1.PodFailed:
		return "F"
	}
	return "?"
}

// Coverage returns what the run reached so far.
func (t *Tracker) Coverage() coverage.Coverage { return t.rec.Coverage() }

// Near records an oracle's near miss (coverage.Recorder.Near): the tracker
// is the VK near-miss tracker's sink (package oracle/nearmiss).
func (t *Tracker) Near(rule, situation string) { t.rec.Near(rule, situation) }
