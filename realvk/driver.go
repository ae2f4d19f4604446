package realvk

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"testing/synctest"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/podsim/podsim/oracle/nearmiss"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/realvk/explain"
	"github.com/podsim/podsim/realvk/script"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// StepDuration is the fake time every driver step takes: it lets the work
// queues' rate-limited delays (5 ms and up) and the informer's 100 ms
// sync poll run out between steps.
const StepDuration = 100 * time.Millisecond

// SleepDuration is the fake time a "sleep" move lets pass (deletion grace
// periods, the 151 ms notification retries, queue back-off).
const SleepDuration = time.Second

// Namespace holds every pod of a run.
const Namespace = explain.Namespace

// Driver applies moves to a World inside a synctest bubble (it must be
// made and used inside synctest.Test). After each move it waits until
// every goroutine of the bubble is parked at a gate or idle, then records
// what the step did.
type Driver struct {
	W     *World
	start time.Time
	// restarting: a vk-restart cancelled the controller, which starts
	// again once its Done closed.
	restarting bool
	tape       *tape
	// Moves are the moves applied so far (the run's script); Step counts
	// them.
	Moves []script.Move
	Step  int
	trace []string
	// planSteps is how many of Moves came before the settle phase.
	planSteps int
	findings  []Finding
	// final is the end state the classifier reads (snapshotEnd).
	final *explain.End
}

// NewDriver makes an empty world (the controller not started).
func NewDriver() *Driver {
	d := &Driver{W: newWorld(), start: time.Now()}
	d.tape = newTape(d.start)
	return d
}

// RecordNearMisses makes the run record the VK oracle's near misses
// (package oracle/nearmiss) beside its state coverage: call it before the
// first move.
func (d *Driver) RecordNearMisses() { d.tape.near = nearmiss.NewVK(d.tape.cov) }

// Apply performs one move and waits for what it causes; false if the
// move cannot happen now (nothing happened, and it is not recorded):
// shrinking and replay rely on that.
func (d *Driver) Apply(m script.Move) bool {
	if !d.possible(m) {
		return false
	}
	d.Step++
	d.Moves = append(d.Moves, m)
	d.tracef("step %d %v: %s", d.Step, time.Since(d.start), m)
	switch m.Kind {
	case script.MoveAction:
		d.action(m.Action)
	case script.MoveRelease:
		d.W.gates.Release(m.Label, m.Outcome)
	case script.MoveWatch:
		d.W.deliverWatch()
	case script.MoveEvent:
		d.W.deliverEvent()
	case script.MoveNotify:
		d.W.notify(m.Label)
	case script.MoveSleep:
		time.Sleep(SleepDuration - StepDuration)
	case script.MoveWorkers:
		d.W.workers = m.N
	}
	time.Sleep(StepDuration)
	synctest.Wait()
	d.afterStep()
	return true
}

// possible reports whether m can happen in the state reached.
func (d *Driver) possible(m script.Move) bool {
	w := d.W
	switch m.Kind {
	case script.MoveRelease:
		for _, c := range w.gates.Parked() {
			if c.Label() == m.Label {
				return true
			}
		}
		return false
	case script.MoveWatch:
		w.mu.Lock()
		defer w.mu.Unlock()
		return w.pendingWatch() > 0
	case script.MoveEvent:
		w.mu.Lock()
		defer w.mu.Unlock()
		return len(w.events) > 0
	case script.MoveNotify:
		w.mu.Lock()
		defer w.mu.Unlock()
		b := w.backend[m.Label]
		return b != nil && b.dirty && w.running && w.notifyCB[w.gen] != nil
	case script.MoveAction:
		return d.actionPossible(m.Action)
	case script.MoveWorkers:
		return w.gen == 0 && m.N >= 1
	}
	return true
}

func (d *Driver) actionPossible(a plan.Action) bool {
	w := d.W
	switch a.Kind {
	case plan.VKStart:
		return !w.running && w.doneClosed() && !d.restarting
	case plan.VKRestart:
		return w.running
	}
	return a.Kind.IsVK()
}

// action performs a VK plan action (plan/vk.go). An action that does not
// apply in the state reached (a delete of an object that is gone, a status
// for a pod the provider does not have) does nothing, as in the simulated
// world.
func (d *Driver) action(a plan.Action) {
	w := d.W
	switch a.Kind {
	case plan.VKStart:
		w.start()
		return
	case plan.VKRestart:
		// Cancelled now; started again once Done closed (afterStep).
		w.stop()
		d.restarting = true
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	var err error
	switch a.Kind {
	case plan.VKCreate:
		err = w.api.Create(podObject(a.UID, a.PodName()))
	case plan.VKDelete:
		o := metav1.DeleteOptions{Preconditions: metav1.NewUIDPreconditions(string(a.UID))}
		if a.Grace >= 0 {
			o.GracePeriodSeconds = &a.Grace
		}
		err = w.api.Delete("client", Namespace, a.PodName(), o)
	case plan.VKEdit:
		if w.api.Edit(a.UID) {
			w.ev.Edits[a.UID] = explain.Edit{StatusSeq: w.statusSeq, NotifySeq: w.notifySeq}
		}
	case plan.VKStatus:
		w.setStatus(a.UID, v1.PodPhase(a.Terminal))
	case plan.VKProviderDelete:
		w.providerDelete(a.UID)
	case plan.VKProviderPod:
		w.providerPodFor(a.UID)
	}
	if err != nil {
		w.notef("%s -> %s", script.FormatAction(a), errWord(err))
	}
}

// podObject is pod name with uid, bound to the node, with the default
// grace of 30 s and one container, Pending.
func podObject(uid types.UID, name string) *v1.Pod {
	grace := int64(v1.DefaultTerminationGracePeriodSeconds)
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: Namespace, Name: name, UID: uid},
		Spec: v1.PodSpec{NodeName: NodeName, TerminationGracePeriodSeconds: &grace,
			RestartPolicy: v1.RestartPolicyAlways, Containers: []v1.Container{{Name: "c", Image: "img"}}},
		Status: v1.PodStatus{Phase: v1.PodPending},
	}
}

// afterStep records what the step did: the world's notes, the calls that
// reached a gate, and sorts the initial-list adds the informer queued.
func (d *Driver) afterStep() {
	w := d.W
	w.pollLife()
	if d.restarting && w.doneClosed() {
		d.restarting = false
		w.start()
		synctest.Wait()
		w.pollLife()
	}
	w.mu.Lock()
	noted := w.noted
	w.noted = nil
	sortInitial(w.events)
	notes := w.notes
	w.notes = nil
	changes := w.api.changes
	w.api.changes = nil
	w.mu.Unlock()
	for _, n := range notes {
		d.tracef("  %s", n)
	}
	for _, c := range changes {
		d.tracef("  %s", c)
	}
	for _, n := range noted {
		if n.note == nil {
			d.tape.cov.Answered(n.uid, n.answer)
			continue
		}
		d.tape.observe(n.note, n.at, d.Step)
	}
	for _, label := range w.gates.TakeDups() {
		d.report("harness", "two calls parked under one label "+label)
	}
	for _, c := range w.gates.Parked() {
		if !c.Begun {
			c.Begun = true
			d.tracef("  park %s", c.Label())
		}
	}
}

func (d *Driver) tracef(format string, args ...any) {
	d.trace = append(d.trace, fmt.Sprintf(format, args...))
}

// TraceSHA is the SHA-256 of the canonical trace.
func (d *Driver) TraceSHA() string {
	sum := sha256.Sum256([]byte(strings.Join(d.trace, "\n")))
	return hex.EncodeToString(sum[:])
}
