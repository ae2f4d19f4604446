package vkworld

import (
	"maps"
	"slices"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/sim"
)

// provPod is one pod in the provider; its status is (phase, version), and
// deleting says the provider deleted it by itself.
type provPod struct {
	uid      types.UID
	name     string
	phase    v1.PodPhase
	version  int
	deleting bool
}

func terminal(phase v1.PodPhase) bool { return phase == v1.PodSucceeded || phase == v1.PodFailed }

// provider is the fake provider: pods by UID, faults (errors until the
// world heals, slow calls, pods a GetPod misses), and the NotifyPods
// callback of the running controller. Each call is a scheduling point.
type provider struct {
	w        *World
	pods     map[types.UID]*provPod
	callback func(provPod)
	notifyMu *sim.Mutex
}

// call is the common prologue of every provider call (op on uid, whose pod
// is called name; "" for none): a scheduling point, maybe a slow call (a
// fault point's, or drawn), maybe an error.
func (p *provider) call(op string, uid types.UID, name string) error {
	w := p.w
	w.S.Yield()
	f := w.plan.Faults
	slept := w.points != nil && w.slowPoint(op, uid, name)
	if !slept && w.faultsOn() && f.SlowRate > 0 && w.draw(1000) < f.SlowRate {
		w.S.Sleep(time.Duration(1+w.draw(int(f.MaxDelay/time.Millisecond/50)+1)) * 50 * time.Millisecond)
	}
	if w.fault("provider/" + op) {
		return errTransient
	}
	return nil
}

// byName is the provider pod called name (the newest, if several).
func (p *provider) byName(name string) *provPod {
	var found *provPod
	for _, uid := range p.uids() {
		if pp := p.pods[uid]; pp.name == name {
			found = pp
		}
	}
	return found
}

func (p *provider) uids() []types.UID { return slices.Sorted(maps.Keys(p.pods)) }

// getPod is GetPod: nil when the provider does not have the pod (or its
// cache misses it).
func (p *provider) getPod(name string) (*provPod, error) {
	if err := p.call("get", "", name); err != nil {
		return nil, err
	}
	pp := p.byName(name)
	if pp == nil || p.w.faultsOn() && p.w.plan.VK.MissingRate > 0 && p.w.draw(1000) < p.w.plan.VK.MissingRate {
		return nil, nil
	}
	c := *pp
	return &c, nil
}

// getPods is GetPods.
func (p *provider) getPods() ([]provPod, error) {
	if err := p.call("list", "", ""); err != nil {
		return nil, err
	}
	var out []provPod
	for _, uid := range p.uids() {
		out = append(out, *p.pods[uid])
	}
	return out, nil
}

func (p *provider) createPod(pod apiPod) error {
	if err := p.call("create", pod.uid, pod.name); err != nil {
		return err
	}
	if p.pods[pod.uid] != nil {
		return errAlreadyExists
	}
	p.pods[pod.uid] = &provPod{uid: pod.uid, name: pod.name, phase: v1.PodPending}
	p.w.note(history.VKProviderCreated{UID: pod.uid})
	return nil
}

func (p *provider) deletePod(uid types.UID) error {
	name := ""
	if pp := p.pods[uid]; pp != nil {
		name = pp.name
	}
	if err := p.call("delete", uid, name); err != nil {
		return err
	}
	if p.pods[uid] == nil {
		return errNotFound
	}
	delete(p.pods, uid)
	p.w.note(history.VKProviderDeleted{UID: uid})
	return nil
}

// add puts a dangling pod into the provider (a plan's vk-dangling).
func (p *provider) add(uid types.UID, name string) {
	if p.pods[uid] == nil {
		p.pods[uid] = &provPod{uid: uid, name: name, phase: v1.PodRunning, version: 1}
		p.w.note(history.VKProviderCreated{UID: uid})
	}
}

// setStatus is a plan's vk-status: a new status (phase "" keeps the
// current one), notified. A terminal pod stays terminal.
func (p *provider) setStatus(uid types.UID, phase v1.PodPhase) {
	pp := p.pods[uid]
	if pp == nil {
		return
	}
	if phase != "" && !terminal(pp.phase) {
		pp.phase = phase
		pp.version++
	}
	p.notify(pp)
}

// providerDelete is a plan's vk-provider-delete: the provider deletes the
// pod by itself and notifies a deletion timestamp.
func (p *provider) providerDelete(uid types.UID) {
	if pp := p.pods[uid]; pp != nil && !pp.deleting {
		pp.deleting = true
		p.notify(pp)
	}
}

// notify calls the NotifyPods callback, if a controller registered one,
// in the caller's goroutine (it may block, as VK's does).
// Notifications are delivered one at a time, in order (notifyMu), each
// with the pod's status as it is when delivered.
func (p *provider) notify(pp *provPod) {
	if p.notifyMu == nil {
		p.notifyMu = p.w.S.NewMutex("provider/notify")
	}
	p.notifyMu.Lock()
	defer p.notifyMu.Unlock()
	p.w.note(history.VKNotified{UID: pp.uid, Phase: pp.phase, Version: pp.version, Deleting: pp.deleting})
	if p.callback != nil {
		p.callback(*pp)
	}
}

// register is NotifyPods: the provider notifies every pod it has at once
// (podsim's provider contract: a new controller learns the current
// statuses), then every change.
func (p *provider) register(epoch int, cb func(provPod)) {
	p.callback = cb
	p.w.S.Go(fmtEpoch("provider/notify-all", epoch), func() {
		for _, uid := range p.uids() {
			if pp := p.pods[uid]; pp != nil && (pp.version > 0 || pp.deleting) && p.callback != nil {
				p.notify(pp)
			}
		}
	})
}

func (p *provider) final() []history.VKProviderPod {
	var out []history.VKProviderPod
	for _, uid := range p.uids() {
		pp := p.pods[uid]
		out = append(out, history.VKProviderPod{UID: uid, Phase: pp.phase, Version: pp.version, Deleting: pp.deleting})
	}
	slices.SortFunc(out, func(x, y history.VKProviderPod) int { return strings.Compare(string(x.UID), string(y.UID)) })
	return out
}
