package plan

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/sim"
)

// VK is the world of a virtual-kubelet pod controller plan (Plan.VK): an
// API server, the controller's pod informer, the controller with its three
// queues, and a provider whose faults are the plan's Faults (ErrorRate,
// SlowRate, MaxDelay). It is target-independent data: the simulated VK
// world and the real PodController's driver read the same plan.
//
// The actions of a VK plan (the VK action kinds), in plan time:
//
//	vk-create uid=U name=N         a client creates pod object N with UID U
//	vk-delete uid=U name=N grace=G a client deletes object N (if it still has UID U), grace G (-1: the spec's)
//	vk-edit uid=U                  another writer edits U's status in the API (not the controller)
//	vk-status uid=U [phase=P]      the provider changes U's status to phase P and notifies it (no phase:
//	                               notifies the unchanged status again)
//	vk-provider-delete uid=U       the provider deletes U by itself and notifies a deletion timestamp
//	vk-provider-pod uid=U          the provider already runs U, with status v1 Running: a pod a
//	                               former controller created (if an API object has UID U) or a
//	                               dangling one (if none has)
//	vk-start                       the controller starts (Run): every plan has one
//	vk-restart                     the controller is cancelled, waited for, and started again
//
// Actions before vk-start set up the world the controller starts in. When
// the plan is over the provider's faults heal, the controller runs until
// quiet, then its context is cancelled and Done must close.
type VK struct {
	// Workers is the number of goroutines of each of the three queues.
	Workers int
	// InformerLag is the most an informer event lags the API write that
	// caused it (each event is delayed 0 to InformerLag).
	InformerLag time.Duration
	// HealAt is when the provider's faults stop (0: at the end of the
	// plan).
	HealAt time.Duration `json:",omitempty"`
	// MissingRate (per mille): a provider GetPod does not find a pod it
	// has (a stale provider cache).
	MissingRate int `json:",omitempty"`
}

func (v *VK) String() string {
	s := fmt.Sprintf("vk workers=%d informer-lag=%v", v.Workers, v.InformerLag)
	if v.HealAt > 0 {
		s += fmt.Sprintf(" heal-at=%v", v.HealAt)
	}
	if v.MissingRate > 0 {
		s += fmt.Sprintf(" missing=%d", v.MissingRate)
	}
	return s
}

// IsVK reports whether k is one of the VK plans' action kinds.
func (k ActionKind) IsVK() bool { return k >= VKCreate && k <= VKRestart }

// vkPlanner builds a VK plan; every choice comes from src.
type vkPlanner struct {
	*planner
	next int // the next fresh UID
}

func newVKPlanner(src sim.Source, family string, f Faults) *vkPlanner {
	p := &vkPlanner{planner: newPlanner(src, family, 1, f)}
	p.plan.VK = &VK{Workers: 1 + src.Intn(2), InformerLag: pick(src, 0, 100*time.Millisecond, 500*time.Millisecond, time.Second)}
	return p
}

// fresh is a new UID: a, b, c, ...
func (p *vkPlanner) fresh() types.UID {
	p.next++
	return letterUID(p.next - 1)
}

func (p *vkPlanner) vk(kind ActionKind, uid types.UID, shape Action) {
	a := p.add(kind, uid, shape)
	a.Client = 0
	if kind != VKDelete {
		a.Grace = -1
	}
}

func (p *vkPlanner) create(name string) types.UID {
	uid := p.fresh()
	if name == "" {
		name = "pod-" + string(uid)
	}
	p.vk(VKCreate, uid, Action{Name: name})
	return uid
}

func (p *vkPlanner) status(uid types.UID) {
	p.vk(VKStatus, uid, Action{Terminal: pick(p.src, "Running", "Running", "Succeeded", "Failed", "")})
}

// GenerateVKStartup: pods created, terminating and dangling while the
// controller starts; pods created while the informer lists, and statuses
// notified before the informer has the pod (V1, V3, V10, dangling pods).
func GenerateVKStartup(src sim.Source) Plan {
	p := newVKPlanner(src, "vk-startup", Faults{ErrorRate: pick(src, 0, 100), SlowRate: 300, MaxDelay: time.Second})
	var live []types.UID
	for n := 1 + src.Intn(3); n > 0; n-- {
		uid := p.create("")
		if src.Intn(2) == 0 {
			p.vk(VKProviderPod, uid, Action{}) // a former controller created it
		}
		if src.Intn(3) == 0 {
			p.vk(VKDelete, uid, Action{Name: "pod-" + string(uid), Grace: int64(pick(src, 1, 5, 30))})
		} else {
			live = append(live, uid)
		}
	}
	for n := src.Intn(3); n > 0; n-- {
		p.vk(VKProviderPod, p.fresh(), Action{})
	}
	p.wait(2)
	p.vk(VKStart, "", Action{})
	for n := 1 + src.Intn(3); n > 0; n-- {
		p.at += time.Duration(src.Intn(4)) * 50 * time.Millisecond
		uid := p.create("")
		live = append(live, uid)
		if src.Intn(2) == 0 {
			p.vk(VKStatus, uid, Action{Terminal: "Running"})
		}
	}
	for n := src.Intn(3); n > 0 && len(live) > 0; n-- {
		p.wait(2)
		p.status(live[src.Intn(len(live))])
	}
	return p.plan
}

// GenerateVKDeleteRecreate: graceful deletes, and pods re-created under the
// same name within the deletion grace; the provider finishes some pods
// late or never (V2, deletion only after terminal or grace).
func GenerateVKDeleteRecreate(src sim.Source) Plan {
	p := newVKPlanner(src, "vk-delete-recreate", Faults{ErrorRate: pick(src, 0, 100, 300), SlowRate: 300, MaxDelay: time.Second})
	p.vk(VKStart, "", Action{})
	names := []string{"web", "db"}
	for n := 1 + src.Intn(2); n > 0; n-- {
		name := names[n-1]
		uid := p.create(name)
		p.at += 2 * time.Second // the controller creates it in the provider
		p.wait(2)
		if src.Intn(4) > 0 {
			p.vk(VKStatus, uid, Action{Terminal: "Running"})
			p.at += time.Second // the status reaches the API and the informer
			p.wait(2)
		}
		p.vk(VKDelete, uid, Action{Name: name, Grace: int64(pick(src, 2, 5, 10))})
		if src.Intn(3) == 0 {
			p.vk(VKStatus, uid, Action{Terminal: pick(src, "Succeeded", "Failed")})
		}
		if src.Intn(4) > 0 {
			p.wait(2)
			p.vk(VKDelete, uid, Action{Name: name, Grace: 0}) // a forced delete
		}
		p.wait(2)
		again := p.create(name)
		if src.Intn(2) == 0 {
			p.wait(2)
			p.vk(VKStatus, again, Action{Terminal: "Running"})
		}
	}
	return p.plan
}

// GenerateVKStatusFaults: provider errors that heal, slow calls and
// missing pods; unchanged statuses notified again after another writer
// edited the API object; provider-initiated deletes; graceful deletes
// with a status notified at once (V4, V5, V6, V7, V8).
func GenerateVKStatusFaults(src sim.Source) Plan {
	p := newVKPlanner(src, "vk-status-faults", Faults{ErrorRate: pick(src, 300, 600), SlowRate: 300, MaxDelay: time.Second})
	p.plan.VK.MissingRate = pick(src, 0, 100)
	p.vk(VKStart, "", Action{})
	uids := []types.UID{p.create("")}
	if src.Intn(2) == 0 {
		uids = append(uids, p.create(""))
	}
	p.wait(2)
	for _, uid := range uids {
		p.vk(VKStatus, uid, Action{Terminal: "Running"})
	}
	for n := 3 + src.Intn(5); n > 0; n-- {
		p.wait(2)
		uid := uids[src.Intn(len(uids))]
		switch src.Intn(7) {
		case 0, 1:
			p.vk(VKStatus, uid, Action{Terminal: "Running"})
		case 2:
			p.vk(VKEdit, uid, Action{})
			p.wait(1)
			p.vk(VKStatus, uid, Action{})
		case 3:
			p.vk(VKStatus, uid, Action{})
		case 4:
			p.vk(VKProviderDelete, uid, Action{})
		case 5:
			// A graceful delete with a status notified at once: the sync
			// and status queues work on the pod's key together (V7).
			p.vk(VKDelete, uid, Action{Name: "pod-" + string(uid), Grace: int64(pick(src, 5, 30))})
			p.vk(VKEdit, uid, Action{})
			p.vk(VKStatus, uid, Action{Terminal: "Running"})
		default:
			p.vk(VKStatus, uid, Action{Terminal: pick(src, "Succeeded", "Failed")})
		}
	}
	p.plan.VK.HealAt = p.at + time.Duration(src.Intn(3))*time.Second
	return p.plan
}

// GenerateVKSwarm draws a mixed VK plan: setup pods, then 4 to 16 actions
// of every VK kind, controller restarts among them.
func GenerateVKSwarm(src sim.Source) Plan {
	p := newVKPlanner(src, "vk-swarm", Faults{ErrorRate: pick(src, 0, 100, 300), SlowRate: pick(src, 0, 300), MaxDelay: time.Second})
	p.plan.VK.MissingRate = pick(src, 0, 50)
	names := []string{"web", "db", "job"}
	var uids []types.UID
	byUID := map[types.UID]string{}
	newPod := func() {
		name := pick(src, names...)
		uid := p.create(name)
		uids, byUID[uid] = append(uids, uid), name
	}
	for n := src.Intn(3); n > 0; n-- {
		newPod()
	}
	if src.Intn(2) == 0 {
		p.vk(VKProviderPod, p.fresh(), Action{})
	}
	p.vk(VKStart, "", Action{})
	for n := 4 + src.Intn(13); n > 0 && p.next < 8; n-- {
		p.wait(2)
		if len(uids) == 0 || src.Intn(4) == 0 {
			newPod()
			continue
		}
		uid := uids[src.Intn(len(uids))]
		switch src.Intn(7) {
		case 0:
			p.vk(VKDelete, uid, Action{Name: byUID[uid], Grace: int64(pick(src, -1, 0, 1, 5))})
			if src.Intn(2) == 0 {
				// Another writer's edit and a status at once: the sync and
				// status queues work on the pod's key together (V7).
				p.vk(VKEdit, uid, Action{})
				p.vk(VKStatus, uid, Action{Terminal: "Running"})
			}
		case 1:
			p.vk(VKEdit, uid, Action{})
		case 2:
			p.vk(VKProviderDelete, uid, Action{})
		case 3:
			p.vk(VKRestart, "", Action{})
		default:
			p.status(uid)
		}
	}
	return p.plan
}

// VKFamilies are the virtual-kubelet pod controller's families.
func VKFamilies() []Family {
	return []Family{
		{Name: "vk-delete-recreate", Generate: GenerateVKDeleteRecreate, Marks: []string{MarkVKRecreatedInGrace, MarkVKGraceForced}},
		{Name: "vk-startup", Generate: GenerateVKStartup, Marks: []string{MarkVKTerminatingAtStart, MarkVKDanglingDeleted,
			MarkVKNotifyBeforeInformer, MarkVKCreatedDuringList}},
		{Name: "vk-status-faults", Generate: GenerateVKStatusFaults, Marks: []string{MarkVKProviderErrorHealed,
			MarkVKEditUnchanged, MarkVKProviderDeleted, MarkVKSyncedDuringRetry}},
		{Name: "vk-swarm", Generate: GenerateVKSwarm, Marks: []string{MarkVKRestart, MarkVKRecreatedInGrace}},
	}
}

// Coverage marks of the VK families (set by a VK target).
const (
	MarkVKNotifyBeforeInformer = "vk-notify-before-informer" // a status was notified for a pod the informer had not added yet
	MarkVKTerminatingAtStart   = "vk-terminating-at-start"   // a pod had a deletion timestamp when the controller started
	MarkVKDanglingDeleted      = "vk-dangling-deleted"       // a provider pod with no API pod was deleted at start-up
	MarkVKCreatedDuringList    = "vk-created-during-list"    // a pod was created while the informer's initial list was in flight
	MarkVKRecreatedInGrace     = "vk-recreated-in-grace"     // a pod was created under a name whose previous pod was still terminating
	MarkVKGraceForced          = "vk-grace-forced"           // the delayed forced delete removed a pod whose grace expired
	MarkVKProviderErrorHealed  = "vk-provider-error-healed"  // a status write landed after a provider call had failed
	MarkVKEditUnchanged        = "vk-edit-unchanged-status"  // an unchanged status was notified after another writer edited the object
	MarkVKProviderDeleted      = "vk-provider-initiated-delete"
	MarkVKSyncedDuringRetry    = "vk-synced-during-status-retry" // the sync queue finished a pod's key while its status write waited for a retry (V7)
	MarkVKRestart              = "vk-restart"                    // the controller restarted with pods in the API
)
