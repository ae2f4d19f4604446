package realvk

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/virtual-kubelet/virtual-kubelet/node"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/realvk/callgate"
	"github.com/podsim/podsim/realvk/explain"
)

// Workers is the number of workers per queue the controller runs with
// (Run's podSyncWorkers): more than one, so two keys of one queue can be
// in flight together.
const Workers = 2

// World is everything around the real controller: the API server model,
// the provider's backend, the gates, the informer's queues, and the
// controller generations (a restart starts a new one on the same API
// server and backend).
type World struct {
	// mu guards what goroutines of the bubble write (notes, queued events,
	// the backend and the API server): between driver steps only one runs
	// at a time, the lock makes that visible to the race detector.
	mu    sync.Mutex
	api   *APIServer
	gates *callgate.Gates

	backend  map[string]*providerPod
	notifyCB map[int]func(*v1.Pod)

	// gen is the current controller generation (0: never started);
	// running reports whether it runs.
	gen     int
	running bool
	// workers is Run's podSyncWorkers (the plan's VK.Workers).
	workers int
	pc      *node.PodController
	cancel  context.CancelFunc
	// watchFrom[gen] is the API log index generation gen's watch starts
	// at; watches[gen] is its watch.
	watchFrom map[int]int
	watches   map[int]*gatedWatch
	events    []handlerEvent
	// notes are what the step did, in order, for the trace.
	notes []string

	// noted are the VK notes of the history not yet handed to the
	// driver's tape, with the fake time they happened at.
	noted []notedAt
	// ready and done: the generations whose Ready or Done closed (noted).
	ready, done map[int]bool
	pcs         map[int]*node.PodController
	// ev is what the world records for the classifier (explain) as the
	// run goes; notifies, podsGiven and statusRuns are read back by the
	// world's own bookkeeping too (spans.go, client.go). What the world
	// drives by stays its own (gen, watchFrom, ready above): the driver
	// hands those to the classifier with ev (Driver.classify), so that
	// there is one copy of each and the world's logic reads its own
	// fields.
	ev *explain.Evidence
	// notifySeq numbers the notify moves; a notification's poll gates
	// carry it (spans.go).
	notifySeq int
	// statusSeq orders the accepted notifications, the status writes and
	// the informer's update events run in the handler.
	statusSeq int
}

type notedAt struct {
	note history.Note
	at   time.Time
	// answer, when note is nil, is a provider call's error answer about
	// uid for the coverage alone (provider.answered), not a note.
	answer string
	uid    types.UID
}

// emit records a VK note; the caller holds mu or is the driver between
// steps.
func (w *World) emit(n history.Note) { w.noted = append(w.noted, notedAt{note: n, at: time.Now()}) }

func newWorld() *World {
	w := &World{gates: &callgate.Gates{}, workers: Workers, backend: map[string]*providerPod{}, notifyCB: map[int]func(*v1.Pod){},
		watchFrom: map[int]int{}, watches: map[int]*gatedWatch{}, ready: map[int]bool{}, done: map[int]bool{},
		pcs: map[int]*node.PodController{}, ev: explain.NewEvidence()}
	w.api = newAPIServer(w)
	return w
}

func (w *World) notef(format string, args ...any) {
	w.notes = append(w.notes, fmt.Sprintf(format, args...))
}

// note records a line for the trace (from any goroutine).
func (w *World) note(format string, args ...any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.notef(format, args...)
}

// start builds a new controller generation around fresh informers and
// runs it.
func (w *World) start() bool {
	if w.running {
		return false
	}
	w.gen++
	w.running = true
	gen := w.gen
	inf := gatedInformer{SharedIndexInformer: cache.NewSharedIndexInformer(listWatch{w: w, gen: gen}, &v1.Pod{}, 0,
		cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}), w: w, gen: gen}
	pods := podInformer{inf}
	other := informers.NewSharedInformerFactory(fake.NewClientset(), 0).Core().V1()
	pc, err := node.NewPodController(node.PodControllerConfig{
		PodClient: podClient{w: w, gen: gen}, PodInformer: pods, EventRecorder: &record.FakeRecorder{},
		Provider: provider{w: w, gen: gen, lister: pods.Lister()}, ConfigMapInformer: other.ConfigMaps(), SecretInformer: other.Secrets(),
		ServiceInformer: other.Services(), SkipDownwardAPIResolution: true})
	if err != nil {
		panic(err)
	}
	ctx, cancel := context.WithCancel(w.controllerContext(gen))
	w.pc, w.cancel = pc, cancel
	w.pcs[gen] = pc
	w.emit(history.VKStarted{Epoch: gen})
	w.notef("start g%d", gen)
	go inf.RunWithContext(ctx)
	go func() {
		if err := pc.Run(ctx, w.workers); err != nil {
			w.note("controller g%d exited: %v", gen, err)
		}
	}()
	return true
}

// stop cancels the current generation's context (a clean shutdown): calls
// in flight still return as the driver releases them, and Done closes
// once every worker has returned.
func (w *World) stop() bool {
	if !w.running {
		return false
	}
	// Noted before the cancel, under the lock: the cancelled Run notes
	// its exit from its own goroutine.
	w.mu.Lock()
	w.running = false
	w.emit(history.VKCancelled{Epoch: w.gen})
	w.ev.Cancelled[w.gen] = true
	w.notef("stop g%d", w.gen)
	w.mu.Unlock()
	w.cancel()
	return true
}

// doneClosed reports whether the last generation's Run returned.
func (w *World) doneClosed() bool {
	if w.pc == nil {
		return true
	}
	select {
	case <-w.pc.Done():
		return true
	default:
		return false
	}
}

// pendingWatch is how many API events generation gen's watch has not had.
func (w *World) pendingWatch() int {
	gw := w.watches[w.gen]
	if gw == nil || !w.running {
		return 0
	}
	return len(w.api.events) - w.watchFrom[w.gen]
}

// deliverWatch hands the next API event to the current watch.
func (w *World) deliverWatch() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.pendingWatch() == 0 {
		return false
	}
	ev := w.api.events[w.watchFrom[w.gen]]
	w.watchFrom[w.gen]++
	p := ev.Object.(*v1.Pod)
	w.notef("watch g%d %s %s/%s uid=%s rv=%s", w.gen, ev.Type, p.Namespace, p.Name, p.UID, p.ResourceVersion)
	return w.watches[w.gen].send(ev)
}

// deliverEvent runs the oldest queued handler event (the driver's
// goroutine).
func (w *World) deliverEvent() bool {
	w.mu.Lock()
	if len(w.events) == 0 {
		w.mu.Unlock()
		return false
	}
	e := w.events[0]
	w.events = w.events[1:]
	w.notef("event g%d %s", e.gen, e)
	if p, ok := e.obj.(*v1.Pod); ok && e.kind == "update" {
		w.statusSeq++
		w.ev.LastUpdateEvent[explain.GenUID{Gen: e.gen, UID: p.UID}] = w.statusSeq
	} else if ok && e.kind == "delete" {
		w.statusSeq++
		w.ev.DeleteEvents = append(w.ev.DeleteEvents, explain.DeleteEvent{Gen: e.gen, Key: p.Namespace + "/" + p.Name, UID: p.UID, Seq: w.statusSeq})
	}
	w.mu.Unlock()
	e.run()
	return true
}

// pollLife notes the generations whose Ready or Done closed since the
// last poll, in generation order.
func (w *World) pollLife() {
	for gen := 1; gen <= w.gen; gen++ {
		pc := w.pcs[gen]
		if !w.ready[gen] && closed(pc.Ready()) {
			w.ready[gen] = true
			w.emit(history.VKReady{Epoch: gen})
		}
		if !w.done[gen] && closed(pc.Done()) {
			w.done[gen] = true
			err := ""
			if e := pc.Err(); e != nil {
				err = e.Error()
			}
			w.ev.DoneErr[gen] = err
			w.emit(history.VKDone{Epoch: gen, Err: err})
		}
	}
}

func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
