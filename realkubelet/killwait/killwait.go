// Package killwait holds the killPodNow calls of a run on the real
// kubelet while they wait: the real killPodNow (podworkers.KillPodNow) run
// in a goroutine of its own, its one UpdatePod handed to the driver
// (Start); a manager's killPodNow whose kill was parked and then delivered
// (Go); each wait recorded as a KillPodNowDone call that returns when the
// function does (Waits.Add, Waits.Poll), with R2 judged on the waits the
// driver timed; the relays that close killPodNow's own completion
// channel when the driver's closes; and, at teardown, the end of the
// relays and of every wait (Waits.Stop).
//
// Why a package of its own: this machinery needs of the driver only the
// tape (to record the waits and read the bubble's clock) and a way to
// report R2; the kill itself (its recording, its completion channel, the
// S14 and L6 judgements about that channel) stays the driver's, which
// hands a wait the completion's ID and UID and nothing else. Waits of a
// kubelet process that ended (Waits.Retire) still run out, unrecorded.
package killwait

import (
	"context"
	"fmt"
	"testing/synctest"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"k8s.io/kubernetes/pkg/kubelet"

	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/oracle/latency"
	"github.com/podsim/podsim/realkubelet/podworkers"
	"github.com/podsim/podsim/realkubelet/tape"
)

// Wait is one killPodNow call in flight: its goroutine, blocked in
// killPodNow's wait, sends the function's result on result (buffered).
type Wait struct {
	// ID and UID are the kill's completion's (the driver's).
	ID     int
	UID    types.UID
	result chan error
	callID int
	done   bool
	// R2, for the waits the driver started itself (Start): when the wait
	// began and its timeout, max(10 s, 1.5 × grace); a zero timeout for a
	// manager's wait (Go), which began when the manager called
	// killPodNow, before its kill was parked, at an instant not recorded.
	began, timeout time.Duration
}

// Go runs fn (a killPodNow's wait) in a goroutine of its own; the wait
// ends when fn returns.
func Go(fn func() error) *Wait {
	w := &Wait{result: make(chan error, 1)}
	go func() { w.result <- fn() }()
	return w
}

// Call is a killPodNow call whose UpdatePod waits for the driver: the
// driver performs Opts (recorded, with a completion channel it watches),
// then calls Sent, and killPodNow goes on to its wait.
type Call struct {
	Opts kubelet.UpdatePodOptions
	Wait *Wait
	sent chan struct{}
}

// Sent tells killPodNow its UpdatePod was performed.
func (c *Call) Sent() { close(c.sent) }

// request is killPodNow's UpdatePod, handed to the driver.
type request struct {
	opts kubelet.UpdatePodOptions
	sent chan struct{} // closed once the driver performed it
}

// workers are the pod workers as killPodNow sees them: its one UpdatePod
// is handed to the driver, which records and performs it (so the kill
// takes effect at a driver step, as every other client call), and returns
// once the driver did.
type workers struct {
	kubelet.PodWorkers
	requests chan request
}

func (w workers) UpdatePod(_ context.Context, o kubelet.UpdatePodOptions) {
	r := request{opts: o, sent: make(chan struct{})}
	w.requests <- r
	<-r.sent
}

// Start runs the real killPodNow over the pod workers pw for pod (evict
// and the grace override as the manager's call has them) in a goroutine
// of its own, and returns once it sent its UpdatePod, which waits for the
// driver (Call).
func Start(ctx context.Context, pw kubelet.PodWorkers, pod *v1.Pod, evict bool, override *int64) *Call {
	requests := make(chan request)
	fn := podworkers.KillPodNow(ctx, workers{PodWorkers: pw, requests: requests}, &record.FakeRecorder{})
	w := Go(func() error { return fn(pod, evict, override, func(*v1.PodStatus) {}) })
	r := <-requests
	return &Call{Opts: r.opts, Wait: w, sent: r.sent}
}

// Timeout is killPodNow's wait for a kill of pod with override:
// max(10 s, 1.5 × grace), grace the override if the call has one, else
// the pod's own (0 if unset).
func Timeout(pod *v1.Pod, override *int64) time.Duration {
	return latency.KillTimeout(killGrace(pod, override))
}

func killGrace(pod *v1.Pod, override *int64) int64 {
	switch {
	case override != nil:
		return *override
	case pod != nil && pod.Spec.TerminationGracePeriodSeconds != nil:
		return *pod.Spec.TerminationGracePeriodSeconds
	}
	return 0
}

// Waits are a run's killPodNow waits: the current kubelet process's, whose
// returns are recorded, and those of processes that ended.
type Waits struct {
	tape       *tape.Tape
	r2         func(msg string)
	live, dead []*Wait
	// stop is closed when the run is torn down (the relays end).
	stop chan struct{}
}

// New keeps the waits of a run recorded on t; r2 reports an R2 finding.
func New(t *tape.Tape, r2 func(msg string)) *Waits {
	return &Waits{tape: t, r2: r2, stop: make(chan struct{})}
}

// Add records w as the call of completion id of uid (a KillPodNowDone of
// goroutine killpodnow/<id>), which returns when w's function does;
// timeout is R2's bound from now, 0 for a wait not judged.
func (ws *Waits) Add(w *Wait, id int, uid types.UID, timeout time.Duration) {
	w.ID, w.UID = id, uid
	w.callID = ws.tape.Call(goroutine(w), ops.KillPodNowDone{UID: string(uid), ID: id})
	w.began, w.timeout = ws.tape.Elapsed(), timeout
	ws.live = append(ws.live, w)
}

// Live are the current kubelet process's waits, in the order added.
func (ws *Waits) Live() []*Wait { return ws.live }

// Retire sets the current process's waits aside: never recorded again,
// never owed (a dead kubelet owes no liveness); they end on their own
// timeout on the bubble's clock.
func (ws *Waits) Retire() {
	ws.dead = append(ws.dead, ws.live...)
	ws.live = nil
}

// Poll ends the killPodNow calls that returned: nil (the completion
// fired) is Answer(true), its timeout error Answer(false), judged by R2.
func (ws *Waits) Poll() {
	for _, w := range ws.dead {
		if w.done {
			continue
		}
		select {
		case <-w.result:
			w.done = true // a dead process's: never recorded
		default:
		}
	}
	for _, w := range ws.live {
		if w.done {
			continue
		}
		select {
		case err := <-w.result:
			w.done = true
			ws.tape.Ret(goroutine(w), w.callID, ops.Answer(err == nil))
			if err != nil {
				if msg := w.gaveUpEarly(ws.tape.Elapsed()); msg != "" {
					ws.r2(msg)
				}
			}
		default:
		}
	}
}

// gaveUpEarly is R2 on the real kubelet, in the one direction a poll can
// judge, for a wait that timed out, seen at now: it must have waited its
// whole timeout. The driver sees a return only at the poll after it, so
// the recorded wait is never shorter than the real one and a short one is
// the code's. (The simulated runs also check the other direction, and
// "exactly at the bound": polling cannot.) "" if it did, or is not judged.
func (w *Wait) gaveUpEarly(now time.Duration) string {
	if w.timeout == 0 {
		return ""
	}
	if waited := now - w.began; waited < w.timeout {
		return fmt.Sprintf("pod %s: killPodNow gave up after %v, before its timeout of %v (max(10 s, 1.5 × grace))",
			w.UID, waited, w.timeout)
	}
	return ""
}

// Open counts the waits, of every process, that have not ended.
func (ws *Waits) Open() int {
	n := 0
	for _, ws := range [][]*Wait{ws.dead, ws.live} {
		for _, w := range ws {
			if !w.done {
				n++
			}
		}
	}
	return n
}

// RunOut lets the bubble's clock run, a second at a time, until every
// wait ended or limit seconds passed (limit < 0: no limit): killPodNow's
// timer wakes its goroutine, which returns before the poll.
func (ws *Waits) RunOut(limit int) {
	for i := 0; (limit < 0 || i < limit) && ws.Open() > 0; i++ {
		time.Sleep(time.Second)
		synctest.Wait()
		ws.Poll()
	}
}

// Relay closes theirs (killPodNow's completion channel, send-only for the
// pod workers' sake) once ours (the driver's, which the kill carries
// instead) is closed, or gives up when the run is torn down (Stop: ours
// never closed).
func (ws *Waits) Relay(ours <-chan struct{}, theirs chan<- struct{}) {
	go func() {
		select {
		case <-ours:
			close(theirs)
		case <-ws.stop:
		}
	}()
}

// Stop ends the relays of completions that never closed and lets every
// wait run out on the bubble's clock, so that no goroutine of the run
// outlives it; once (a later call does nothing).
func (ws *Waits) Stop() {
	select {
	case <-ws.stop:
		return
	default:
	}
	close(ws.stop)
	ws.RunOut(-1)
}

func goroutine(w *Wait) string { return fmt.Sprintf("killpodnow/%d", w.ID) }
