package nearmiss

import (
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
)

// VK names the virtual-kubelet oracle's rules in the keys (oracle/vk).
const VK = "vk"

// The virtual-kubelet oracle's near misses, from the VK notes alone (as
// oracle/vk reads them), each keyed "vk/<rule>/<situation>":
//
//	vk/VK3/removed-on-sole/<reason>
//	    the controller removed a deleted pod's API object when exactly
//	    one of VK3's reasons held: the provider reported it terminal
//	    ("terminal"), it left the provider ("gone"), the provider deleted
//	    it ("provider-deleting"), the API's status did not say Running
//	    ("not-running"), or its grace had expired ("grace-at-expiry" in
//	    the instant it did, else "grace-expired")
//	vk/VK2/removed-behind/<by>, vk/VK2/behind-at-cancel
//	    a pod's API object left the API (removed by <by>), or the
//	    controller was cancelled, while the provider's newest status had
//	    not reached the API: VK2 judges live pods only, so the deletion
//	    or the restart is what kept the notification from counting
//	vk/VK5/pdeleted-live/<reason>[/same-instant]
//	    the controller deleted a pod from the provider while its API object
//	    was still there, on the one ground VK5 allows ("deleting": the
//	    object has a deletion timestamp, "provider-deleting"; "/same-instant"
//	    when the timestamp came in that instant)
//	vk/VK4/deleting-at-start/<first|restart>/<provider>
//	    the controller started while a pod's API object had a deletion
//	    timestamp (VK4's precondition), the pod in the provider being
//	    "terminal", "gone" or "running"

// vkPod is what the VK tracker knows of one UID.
type vkPod struct {
	inAPI, deleting  bool
	deletedAt        time.Duration
	grace            int64
	apiPhase         v1.PodPhase
	apiVersion       int
	edited           bool // another writer's edit stands
	notified         bool
	lastVersion      int
	providerTerminal bool
	providerGone     bool
	providerDeleting bool
}

// behind: the provider's newest status has not reached the API.
func (p *vkPod) behind() bool { return p.notified && !p.edited && p.apiVersion != p.lastVersion }

// VKTracker is the VK observer: NewVK, then Observe every event.
type VKTracker struct {
	sink  Sink
	pods  map[types.UID]*vkPod
	order []types.UID // UIDs in order of first sight
}

// NewVK returns a VK tracker that tells s its near misses.
func NewVK(s Sink) *VKTracker { return &VKTracker{sink: s, pods: map[types.UID]*vkPod{}} }

func (t *VKTracker) pod(uid types.UID) *vkPod {
	p := t.pods[uid]
	if p == nil {
		p = &vkPod{}
		t.pods[uid] = p
		t.order = append(t.order, uid)
	}
	return p
}

// Observe follows one event: the VK notes; every other one is ignored.
func (t *VKTracker) Observe(ev *history.Event) {
	if ev.Kind != history.Noted {
		return
	}
	switch n := ev.Note.(type) {
	case history.VKCreated:
		p := t.pod(n.UID)
		p.inAPI, p.apiPhase = true, v1.PodPending
	case history.VKStatusWritten:
		p := t.pod(n.UID)
		p.apiPhase, p.apiVersion, p.edited = n.Phase, n.Version, false
	case history.VKEdited:
		// As VK2 has it: an edit of the provider's newest status stands
		// until the provider notifies again.
		p := t.pod(n.UID)
		p.edited, p.apiVersion = p.apiVersion == p.lastVersion, 0
	case history.VKDeleteRequested:
		if p := t.pod(n.UID); !p.deleting {
			p.deleting, p.deletedAt, p.grace = true, ev.At, n.Grace
		}
	case history.VKRemoved:
		t.removed(ev.At, n)
	case history.VKProviderDeleted:
		t.providerDeleted(ev.At, n)
	case history.VKNotified:
		p := t.pod(n.UID)
		p.notified, p.lastVersion, p.edited = true, n.Version, false
		p.providerTerminal = p.providerTerminal || n.Phase == v1.PodSucceeded || n.Phase == v1.PodFailed
		p.providerDeleting = p.providerDeleting || n.Deleting
	case history.VKStarted:
		t.started(n.Epoch)
	case history.VKCancelled:
		for _, uid := range t.order {
			if p := t.pods[uid]; p.inAPI && p.behind() {
				t.sink.Near(VK, "VK2/behind-at-cancel")
			}
		}
	}
}

// removed follows an API object leaving the API (VK2, VK3).
func (t *VKTracker) removed(at time.Duration, n history.VKRemoved) {
	p := t.pod(n.UID)
	defer func() { p.inAPI = false }()
	if p.behind() {
		t.sink.Near(VK, "VK2/removed-behind/"+n.By)
	}
	if n.By != "controller" || n.Precondition != n.UID || !(p.deleting || p.providerDeleting) {
		return
	}
	var reasons []string
	add := func(held bool, reason string) {
		if held {
			reasons = append(reasons, reason)
		}
	}
	add(p.providerTerminal, "terminal")
	add(p.providerGone, "gone")
	add(p.providerDeleting, "provider-deleting")
	add(p.apiPhase != v1.PodRunning, "not-running")
	if expiry := p.deletedAt + time.Duration(p.grace)*time.Second; p.deleting && at >= expiry {
		add(at == expiry, "grace-at-expiry")
		add(at > expiry, "grace-expired")
	}
	if len(reasons) == 1 {
		t.sink.Near(VK, "VK3/removed-on-sole/"+reasons[0])
	}
}

// providerDeleted follows a pod leaving the provider (VK5).
func (t *VKTracker) providerDeleted(at time.Duration, n history.VKProviderDeleted) {
	p := t.pod(n.UID)
	defer func() { p.providerGone = true }()
	if n.ByProvider || !p.inAPI {
		return
	}
	switch {
	case p.deleting && p.providerDeleting:
	case p.deleting && at == p.deletedAt:
		t.sink.Near(VK, "VK5/pdeleted-live/deleting/same-instant")
	case p.deleting:
		t.sink.Near(VK, "VK5/pdeleted-live/deleting")
	case p.providerDeleting:
		t.sink.Near(VK, "VK5/pdeleted-live/provider-deleting")
	}
}

// started follows a start of the controller (VK4's precondition).
func (t *VKTracker) started(epoch int) {
	which := "first"
	if epoch > 1 {
		which = "restart"
	}
	for _, uid := range t.order {
		p := t.pods[uid]
		if !p.inAPI || !p.deleting {
			continue
		}
		provider := "running"
		switch {
		case p.providerGone:
			provider = "gone"
		case p.providerTerminal:
			provider = "terminal"
		}
		t.sink.Near(VK, "VK4/deleting-at-start/"+which+"/"+provider)
	}
}
