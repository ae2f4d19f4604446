package scenarios

import (
	"strconv"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/model"
	"github.com/podsim/podsim/workers"
)

// EventKind says what happened around the pod workers.
type EventKind uint8

const (
	// ClientCall: a goroutine called into the pod workers' API (Input), or
	// started killPodNow's wait (model.KillPodNowDone). ID pairs it with
	// its ClientReturn.
	ClientCall EventKind = iota
	// ClientReturn: that call returned (Output; nil for UpdatePod).
	ClientReturn
	// LockAcquired and LockReleasing bracket every critical section of the
	// pod lock, in the goroutine that holds it (worker/<uid> for the
	// worker's hidden steps).
	LockAcquired
	LockReleasing
	// CallbackBegin and CallbackEnd bracket a Syncer callback in the worker
	// goroutine (Input: model.SyncBegin, model.SyncEnd).
	CallbackBegin
	CallbackEnd
	// Fired: a cancellation or a kill completion fired (Input:
	// model.CancelFired, model.CompletionFired), at the Fire.
	Fired
	// Settled: the plan and the settle phase are over; what is not done now
	// never will be (liveness oracles judge here). Nothing follows.
	Settled
	// Restarted: the kubelet restarted (restart.go). Everything after it is
	// the history of new pod workers; nothing of the old ones follows.
	Restarted
)

var eventKindNames = [...]string{"call", "return", "lock", "unlock", "begin", "end", "fired", "settled", "restarted"}

func (k EventKind) String() string { return eventKindNames[k] }

// Event is one entry of the run's totally ordered stream of what happened
// around the pod workers, in the vocabulary of package model.
type Event struct {
	Seq       int64         // position in the stream, from 1
	Step      int64         // the scheduler's step count
	At        time.Duration // virtual time
	Goroutine string
	Kind      EventKind
	ID        int // pairs ClientCall with ClientReturn
	Input     model.Input
	Output    model.Output
}

// Observer receives the event stream. Observe runs in the simulated
// goroutine that caused the event, holding the baton (and, for events
// inside a critical section, the pod lock): it must not block or call
// simulation operations. It may read the pod workers through their
// ...Locked accessors while the pod lock is held.
type Observer interface {
	Observe(w *World, ev Event)
}

// Observe adds an observer; call before Run.
func (w *World) Observe(o Observer) { w.observers = append(w.observers, o) }

func (w *World) emit(kind EventKind, id int, in model.Input, out model.Output) {
	if len(w.observers) == 0 || w.settled {
		return
	}
	w.settled = kind == Settled
	w.seq++
	ev := Event{Seq: w.seq, Step: w.S.Steps(), At: w.S.Elapsed(), Goroutine: w.S.Goroutine(),
		Kind: kind, ID: id, Input: in, Output: out}
	for _, o := range w.observers {
		o.Observe(w, ev)
	}
}

// call emits a ClientCall and returns its ID for the matching ret.
func (w *World) call(in model.Input) int {
	w.calls++
	w.quiet.noteInput(in)
	w.emit(ClientCall, w.calls, in, nil)
	return w.calls
}

// ret emits the ClientReturn of call id, unless the call began before the
// last kubelet restart: its history was closed then.
func (w *World) ret(id int, out model.Output) {
	if id >= w.epochFirstCall {
		w.emit(ClientReturn, id, nil, out)
	}
}

// ModelPod is the part of pod the model reads; Version is the "version"
// label the world stamps on every pod object it builds. A pod is static
// unless its config source annotation says "api" (kubetypes.IsStaticPod
// for every pod the world builds, which always carry the annotation);
// realkubelet builds its pods the same way and reads them through this too.
func ModelPod(pod *v1.Pod) model.Pod {
	version, _ := strconv.Atoi(pod.Labels["version"])
	p := model.Pod{UID: string(pod.UID), Name: pod.Name, Namespace: pod.Namespace, Version: version,
		Static:            pod.Annotations[workers.ConfigSourceAnnotationKey] != workers.ApiserverSource,
		DeletionTimestamp: pod.DeletionTimestamp != nil, SpecGrace: 30}
	if g := pod.DeletionGracePeriodSeconds; g != nil {
		p.DeletionGrace, p.HasDeletionGrace = *g, true
	}
	if g := pod.Spec.TerminationGracePeriodSeconds; g != nil {
		p.SpecGrace = *g
	}
	switch pod.Status.Phase {
	case v1.PodPending:
		p.Phase = model.PhasePending
	case v1.PodSucceeded:
		p.Phase = model.PhaseSucceeded
	case v1.PodFailed:
		p.Phase = model.PhaseFailed
	default:
		p.Phase = model.PhaseRunning
	}
	return p
}

// modelUpdate is the model's view of an UpdatePod call.
func modelUpdate(o workers.UpdatePodOptions, completionID int) model.UpdatePod {
	u := model.UpdatePod{Type: model.UpdateType(o.UpdateType)}
	if o.Pod != nil {
		u.Pod = ModelPod(o.Pod)
	} else if rp := o.RunningPod; rp != nil {
		u.RuntimeOnly = true
		u.Pod = model.Pod{UID: string(rp.ID), Name: rp.Name, Namespace: rp.Namespace}
	}
	if ko := o.KillPodOptions; ko != nil {
		u.Kill.Evict, u.Kill.CompletionID = ko.Evict, completionID
		if g := ko.PodTerminationGracePeriodSecondsOverride; g != nil {
			u.Kill.GraceOverride, u.Kill.HasGraceOverride = *g, true
		}
	}
	return u
}

func modelOutcome(err error) model.Outcome {
	switch {
	case err == nil:
		return model.OK
	case err == workers.ErrCanceled:
		return model.Canceled
	}
	return model.Failed
}

var syncFns = map[string]model.SyncFn{"SyncPod": model.SyncPod, "SyncTerminatingPod": model.SyncTerminatingPod,
	"SyncTerminatingRuntimePod": model.SyncTerminatingRuntimePod, "SyncTerminatedPod": model.SyncTerminatedPod}

// CallBegin implements CallObserver for the fake runtime.
func (w *World) CallBegin(fn string, uid types.UID, c CallInfo) {
	b := model.SyncBegin{UID: string(uid), Fn: syncFns[fn], Type: model.UpdateType(c.UpdateType), Grace: c.Grace}
	if c.Pod != nil {
		b.Version = ModelPod(c.Pod).Version
	}
	w.quiet.noteCallBegin(fn, uid, b.Version)
	if w.kube != nil {
		w.kube.callBegan(w, b.Fn, uid)
	}
	w.emit(CallbackBegin, 0, b, nil)
}

// CallEnd implements CallObserver for the fake runtime; the status manager
// hears of the outcome too.
func (w *World) CallEnd(fn string, uid types.UID, _ CallInfo, err error, isTerminal bool) {
	w.quiet.noteCallEnd(fn, uid, err, isTerminal)
	if w.kube != nil {
		w.kube.callEnded(syncFns[fn], uid, err, isTerminal)
	}
	w.emit(CallbackEnd, 0, model.SyncEnd{UID: string(uid), Fn: syncFns[fn], Outcome: modelOutcome(err), IsTerminal: isTerminal}, nil)
}

// uidOfEvent reads the UID out of an event name "kind/<uid>" or
// "kind/<uid>#n".
func uidOfEvent(name string) string {
	_, rest, _ := strings.Cut(name, "/")
	uid, _, _ := strings.Cut(rest, "#")
	return uid
}

// stateLetter names the SPEC §1.2 state the query answers a show for a
// known pod; started (a SyncPod ran in this incarnation) tells S from P,
// which the answers cannot.
func stateLetter(a workers.Answers, started bool) string {
	switch {
	case a.BeFinished:
		return "F"
	case a.KnownTerminated:
		return "D"
	case a.ContainersBeTerminating:
		return "T"
	case a.TerminationRequested:
		return "TR"
	case started:
		return "S"
	}
	return "P"
}

// workerOf reads the name of a pod worker goroutine, worker/<uid> or, for
// a UID reused after a purge, worker/<uid>#<n>: the UID and the worker's
// generation (1 for the first).
func workerOf(goroutine string) (uid string, gen int, ok bool) {
	rest, ok := strings.CutPrefix(goroutine, "worker/")
	if !ok {
		return "", 0, false
	}
	uid, n, found := strings.Cut(rest, "#")
	gen = 1
	if found {
		if v, err := strconv.Atoi(n); err == nil && v > 1 {
			gen = v
		}
	}
	return uid, gen, true
}
