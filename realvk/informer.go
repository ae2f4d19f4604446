package realvk

import (
	"cmp"
	"context"
	"slices"
	"sync"

	"github.com/podsim/podsim/realvk/callgate"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
)

// The pod informer: client-go's real shared informer, fed by a list and
// watch the driver controls, with its event handlers gated.
//
//   - The initial list parks at a gate ("api.List"): the seed decides when
//     the informer syncs, so notifications and dangling-pod work can come
//     before it.
//   - Watch events wait in the API server's log; the "watch" move hands
//     the next one to the reflector, so the informer's cache lags the API
//     server by as many events as the seed leaves undelivered.
//   - Handler events (the controller's Add/Update/Delete funcs) are queued
//     as they come out of the informer and run, oldest first, by the
//     "event" move, in the driver's goroutine: the cache (the lister) is
//     updated before the handler runs, as in client-go, and the seed
//     decides how long the handler lags. The synthetic adds of the initial
//     list come out of the indexer in map order; they are sorted by key.

// listWatch is the informer's ListerWatcher for generation gen.
type listWatch struct {
	w   *World
	gen int
}

// List parks, then lists the API server's pods (sorted) and remembers
// where the watch must start.
func (lw listWatch) List(metav1.ListOptions) (runtime.Object, error) {
	if o := lw.w.gates.Park(&callgate.Call{Gen: lw.gen, Op: "api.List", Ctx: context.Background()}); o != callgate.OK {
		return nil, context.Canceled
	}
	lw.w.mu.Lock()
	defer lw.w.mu.Unlock()
	items, rv := lw.w.api.List()
	lw.w.watchFrom[lw.gen] = len(lw.w.api.events)
	lw.w.notef("api.List g%d -> %d pods at rv %s", lw.gen, len(items), rv)
	return &v1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: rv}, Items: items}, nil
}

// Watch returns the generation's gated watch.
func (lw listWatch) Watch(metav1.ListOptions) (watch.Interface, error) {
	lw.w.mu.Lock()
	defer lw.w.mu.Unlock()
	gw := &gatedWatch{ch: make(chan watch.Event, 1024)}
	lw.w.watches[lw.gen] = gw
	return gw, nil
}

// IsWatchListSemanticsUnSupported makes the reflector list then watch.
func (listWatch) IsWatchListSemanticsUnSupported() bool { return true }

// gatedWatch is a watch.Interface whose events the driver sends.
type gatedWatch struct {
	mu      sync.Mutex
	ch      chan watch.Event
	stopped bool
}

func (g *gatedWatch) ResultChan() <-chan watch.Event { return g.ch }

func (g *gatedWatch) Stop() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.stopped {
		g.stopped = true
		close(g.ch)
	}
}

func (g *gatedWatch) send(ev watch.Event) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stopped {
		return false
	}
	g.ch <- ev
	return true
}

// gatedInformer is the shared informer with AddEventHandler gated.
type gatedInformer struct {
	cache.SharedIndexInformer
	w   *World
	gen int
}

// AddEventHandler registers a recorder in front of h: events queue up in
// the World until the "event" move runs h.
func (g gatedInformer) AddEventHandler(h cache.ResourceEventHandler) (cache.ResourceEventHandlerRegistration, error) {
	return g.SharedIndexInformer.AddEventHandler(eventQueue{w: g.w, gen: g.gen, h: h})
}

// podInformer implements corev1informers.PodInformer.
type podInformer struct{ inf gatedInformer }

func (p podInformer) Informer() cache.SharedIndexInformer { return p.inf }

func (p podInformer) Lister() corev1listers.PodLister {
	return corev1listers.NewPodLister(p.inf.GetIndexer())
}

// handlerEvent is one event waiting for the controller's handler.
type handlerEvent struct {
	gen      int
	kind     string // add, update, delete
	old, obj any
	initial  bool
	h        cache.ResourceEventHandler
}

func (e handlerEvent) key() string {
	k, _ := cache.DeletionHandlingMetaNamespaceKeyFunc(e.obj)
	return k
}

func (e handlerEvent) String() string {
	s := e.kind + " " + e.key()
	if p, ok := e.obj.(*v1.Pod); ok {
		s += " uid=" + string(p.UID) + " rv=" + p.ResourceVersion
	}
	return s
}

// eventQueue is the handler the informer calls.
type eventQueue struct {
	w   *World
	gen int
	h   cache.ResourceEventHandler
}

func (q eventQueue) push(e handlerEvent) {
	q.w.mu.Lock()
	defer q.w.mu.Unlock()
	e.gen, e.h = q.gen, q.h
	q.w.events = append(q.w.events, e)
}

func (q eventQueue) OnAdd(obj any, initial bool) {
	q.push(handlerEvent{kind: "add", obj: obj, initial: initial})
}

func (q eventQueue) OnUpdate(old, obj any) {
	q.push(handlerEvent{kind: "update", old: old, obj: obj})
}

func (q eventQueue) OnDelete(obj any) { q.push(handlerEvent{kind: "delete", obj: obj}) }

// sortInitial puts each run of initial-list adds in key order (they come
// out of the indexer in map order).
func sortInitial(evs []handlerEvent) {
	for i := 0; i < len(evs); {
		j := i
		for j < len(evs) && evs[j].initial {
			j++
		}
		if j > i {
			slices.SortStableFunc(evs[i:j], func(a, b handlerEvent) int { return cmp.Compare(a.key(), b.key()) })
			i = j
			continue
		}
		i++
	}
}

// run calls the controller's handler for e.
func (e handlerEvent) run() {
	switch e.kind {
	case "add":
		e.h.OnAdd(e.obj, e.initial)
	case "update":
		e.h.OnUpdate(e.old, e.obj)
	case "delete":
		e.h.OnDelete(e.obj)
	}
}
