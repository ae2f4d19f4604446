package world

import (
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/workers"
	"github.com/podsim/podsim/world/fakeruntime"
	"github.com/podsim/podsim/world/probe"
)

// Observe adds an observer of the event stream; call before Run. It runs
// in the simulated goroutine that caused the event, holding the baton (and,
// for events inside a critical section, the pod lock): it must not block
// or run simulation operations. It may read the world's View.
func (w *World) Observe(o func(history.Event)) { w.ObserveEvent(func(ev *history.Event) { o(*ev) }) }

// ObserveEvent is Observe without a copy of each event: o must neither
// change *ev nor keep ev once it returns (the next observer reads it).
func (w *World) ObserveEvent(o func(*history.Event)) {
	if w.observers == nil {
		w.observers = w.first.observers[:0] // mostly one: no allocation
	}
	w.observers = append(w.observers, o)
}

// emit sends an event of kind. It writes w.out field by field: the stamps
// are deliverOut's, and a note or a probe left by the event before is
// cleared (TestEventFields: every field is one of these).
func (w *World) emit(kind history.EventKind, id int, in ops.Input, out ops.Output) {
	if w.sending() {
		e := &w.out
		e.Kind, e.ID, e.Input, e.Output = kind, id, in, out
		if e.Note != nil || e.Probe != nil {
			e.Note, e.Probe = nil, nil
		}
		w.sendOut()
	}
}

// note tells the observers what a kubelet-level actor did (history.Noted).
func (w *World) note(n history.Note) {
	if w.sending() {
		e := &w.out
		e.Kind, e.ID, e.Input, e.Output, e.Note, e.Probe = history.Noted, 0, nil, nil, n, nil
		w.sendOut()
	}
}

// sendOut stamps the event in w.out with the stream's position, the step,
// the virtual time and the goroutine, and delivers it. A note is no step
// of the stream: it takes the Seq of the event before it. Nothing is sent
// after Settled but the drain's notes (noteWorker); the caller checked
// sending.
func (w *World) sendOut() {
	w.settled = w.out.Kind == history.Settled
	w.deliverOut()
}

// deliver is sendOut, for an event built elsewhere, past the check that
// nothing is sent after Settled (the drain's worker notes, drain.go, are
// sent then).
func (w *World) deliver(ev *history.Event) {
	w.out = *ev
	w.deliverOut()
}

// deliverOut stamps the event in w.out (the world's own memory: an
// observer sends nothing) and hands it to each observer. Only the kinds
// that can change what a probe asks go to the probe's memo (probe.Kinds).
func (w *World) deliverOut() {
	ev := &w.out
	if ev.Kind != history.Noted {
		w.seq++
	}
	ev.Seq, ev.Step, ev.At, ev.Goroutine = w.seq, w.S.Steps(), w.S.Elapsed(), w.S.Goroutine()
	if probe.Kinds&(1<<ev.Kind) != 0 {
		w.probes.Note(ev)
	}
	if len(w.observers) == 1 { // the common case: run's observer
		w.observers[0](ev)
		return
	}
	for _, o := range w.observers {
		o(ev)
	}
}

// sending reports whether an event sent now reaches an observer.
func (w *World) sending() bool { return len(w.observers) > 0 && !w.settled }

// call emits a ClientCall and returns its ID for the matching ret.
func (w *World) call(in ops.Input) int {
	w.calls++
	w.quiet.NoteInput(in)
	w.emit(history.ClientCall, w.calls, in, nil)
	return w.calls
}

// ret emits the ClientReturn of call id, unless the call began before the
// last kubelet restart: its history was closed then.
func (w *World) ret(id int, out ops.Output) {
	if id >= w.epochFirstCall {
		w.emit(history.ClientReturn, id, nil, out)
	}
}

// modelUpdate is the model's view of an UpdatePod call (its pod's by objs,
// which built it: history.PodObjects.Model).
func modelUpdate(objs *history.PodObjects, o workers.UpdatePodOptions, completionID int) ops.UpdatePod {
	u := ops.UpdatePod{Type: ops.UpdateType(o.UpdateType)}
	if o.Pod != nil {
		u.Pod = objs.Model(o.Pod)
	} else if rp := o.RunningPod; rp != nil {
		u.RuntimeOnly = true
		u.Pod = ops.Pod{UID: string(rp.ID), Name: rp.Name, Namespace: rp.Namespace}
	}
	if ko := o.KillPodOptions; ko != nil {
		u.Kill.Evict, u.Kill.CompletionID = ko.Evict, completionID
		if g := ko.PodTerminationGracePeriodSecondsOverride; g != nil {
			u.Kill.GraceOverride, u.Kill.HasGraceOverride = *g, true
		}
	}
	return u
}

func modelOutcome(err error) ops.Outcome {
	switch {
	case err == nil:
		return ops.OK
	case err == workers.ErrCanceled:
		return ops.Canceled
	}
	return ops.Failed
}

// CallBegin implements fakeruntime.CallObserver for the fake runtime.
func (w *World) CallBegin(fn string, uid types.UID, c fakeruntime.CallInfo) {
	c.MustName(fn)
	b := ops.SyncBegin{UID: string(uid), Fn: c.Fn, Type: ops.UpdateType(c.UpdateType), Grace: c.Grace}
	if c.Pod != nil {
		b.Version = history.PodVersion(c.Pod)
	}
	w.quiet.NoteCallBegin(fn, uid, b.Version)
	w.workerDoing(w.epoch, "in", fn)
	if w.kube != nil {
		w.kube.callBegan(w, b.Fn, uid)
	}
	w.emit(history.CallbackBegin, 0, w.kept.boxes.Begin(b), nil)
}

// CallEnd implements fakeruntime.CallObserver for the fake runtime; the status manager
// hears of the outcome too.
func (w *World) CallEnd(fn string, uid types.UID, c fakeruntime.CallInfo, err error, isTerminal bool) {
	c.MustName(fn)
	w.quiet.NoteCallEnd(fn, uid, err, isTerminal)
	w.workerDoing(w.epoch, "returned from", fn)
	if w.kube != nil {
		w.kube.callEnded(c.Fn, uid, err, isTerminal)
	}
	end := ops.SyncEnd{UID: string(uid), Fn: c.Fn, Outcome: modelOutcome(err), IsTerminal: isTerminal}
	if shape, marks := w.Runtime.TakeErrShape(uid); err != nil {
		end.Err = shape
		for _, m := range marks {
			w.mark(m)
		}
	}
	w.emit(history.CallbackEnd, 0, w.kept.boxes.End(end), nil)
}
