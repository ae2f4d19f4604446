package vkworld

import (
	"maps"
	"slices"
	"time"

	"github.com/podsim/podsim/sim"
)

// ResyncPeriod is how often the informer hands every cached pod to the
// update handler again (client-go's resync).
const ResyncPeriod = 20 * time.Second

// handlers are the controller's informer event handlers.
type handlers interface {
	onAdd(p apiPod, initial bool)
	onUpdate(old, cur apiPod)
	onDelete(p apiPod)
}

// informer is one controller's pod informer: an initial list that takes a
// while, then the watch's events, each delivered after a lag (in order);
// the cache is what the controller's lister reads.
type informer struct {
	w       *World
	name    string
	store   map[string]apiPod
	synced  *sim.Event
	h       handlers // nil until the controller adds its handlers
	wt      *watcher
	lastDue time.Duration
	listing bool
}

func newInformer(w *World, epoch int) *informer {
	name := fmtEpoch("vk/informer", epoch)
	return &informer{w: w, name: name, store: map[string]apiPod{}, synced: w.S.NewEvent(name + "/synced")}
}

// lag draws one event's delay.
func (i *informer) lag() time.Duration {
	max := i.w.plan.VK.InformerLag
	if max <= 0 {
		return 0
	}
	return time.Duration(i.w.draw(int(max/(50*time.Millisecond))+1)) * 50 * time.Millisecond
}

// run lists, syncs, then delivers the watch's events until stopped.
func (i *informer) run() {
	list, wt := i.w.api.watch(i.name + "/watch")
	i.wt, i.listing = wt, true
	i.w.S.Sleep(i.lag()) // the list's round trip: writes meanwhile arrive by the watch
	for _, p := range list {
		i.store[p.name] = p
	}
	i.listing = false
	i.synced.Fire()
	for {
		for len(wt.events) == 0 {
			if wt.stopped || !wt.wake.Wait() {
				return
			}
		}
		ev := wt.events[0]
		wt.events = wt.events[1:]
		lag, ok := i.w.eventLag(ev)
		if !ok {
			lag = i.lag()
		}
		due := max(i.lastDue, ev.at+lag)
		i.lastDue = due
		if d := due - i.w.S.Elapsed(); d > 0 {
			i.w.S.Sleep(d)
		}
		if wt.stopped {
			return
		}
		i.deliver(ev)
	}
}

func (i *informer) deliver(ev watchEvent) {
	old, had := i.store[ev.pod.name]
	if ev.kind == "deleted" {
		delete(i.store, ev.pod.name)
		if i.h != nil && had {
			i.h.onDelete(old)
		}
		return
	}
	i.store[ev.pod.name] = ev.pod
	switch {
	case i.h == nil:
	case had && old.uid != ev.pod.uid:
		i.h.onDelete(old)
		i.h.onAdd(ev.pod, false)
	case had:
		i.h.onUpdate(old, ev.pod)
	default:
		i.h.onAdd(ev.pod, false)
	}
}

// addHandlers adds the controller's handlers; the cache's pods are handed
// to onAdd first (initial), as client-go does for a late handler.
func (i *informer) addHandlers(h handlers, replay bool) {
	i.h = h
	if replay {
		for _, p := range i.cached() {
			h.onAdd(p, true)
		}
	}
}

// cached is the cache's pods, by name.
func (i *informer) cached() []apiPod {
	var out []apiPod
	for _, n := range slices.Sorted(maps.Keys(i.store)) {
		out = append(out, i.store[n])
	}
	return out
}

// resync hands every cached pod to onUpdate every ResyncPeriod.
func (i *informer) resync(stop *sim.Event) {
	for !stop.WaitFor(ResyncPeriod) {
		if i.h == nil {
			continue
		}
		for _, p := range i.cached() {
			if cur, ok := i.store[p.name]; ok && cur.uid == p.uid {
				i.h.onUpdate(p, p)
			}
		}
	}
}

func (i *informer) stop() {
	if i.wt != nil && !i.wt.stopped {
		i.wt.stopped = true
		i.wt.wake.Close()
	}
}

// get is the lister's Get.
func (i *informer) get(name string) (apiPod, bool) {
	p, ok := i.store[name]
	return p, ok
}
