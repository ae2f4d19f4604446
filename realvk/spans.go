package realvk

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"runtime"
	"strings"
	"time"

	"github.com/podsim/podsim/realvk/callgate"
	"github.com/virtual-kubelet/virtual-kubelet/log"
	"github.com/virtual-kubelet/virtual-kubelet/trace"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// The controller's tracer: virtual-kubelet starts a span (trace.StartSpan)
// at the entry of every piece of work, and takes the tracer from the
// context (trace.WithTracer) when one is there. Each generation's base
// context carries a tracer of ours, so the controller's goroutines meet
// our code where nothing else of ours is on their way, and park there:
//
//   - "handleQueueItemObject": a queue worker took a key off one of the
//     three queues and is about to run the queue's handler. Workers of the
//     three queues that wake at one fake instant would otherwise run their
//     handlers concurrently (the Go scheduler's order); parked here, the
//     seed picks which handler runs. The key and the queue's name come
//     from the logger fields the queue puts in the context.
//   - "deleteDanglingPod": a goroutine of deleteDanglingPods, before it
//     takes the semaphore that lets Run's worker count of them delete
//     together. Which one gets the semaphore is otherwise the scheduler's
//     choice. Its pod is the goroutine's argument, read from its stack
//     (danglingKey).
//   - a notification's poll (enqueuePodStatusUpdate retries every 151 ms
//     while the pod is not yet known): its context is wrapped, and the
//     poll loop's ctx.Err() before each retry parks (pollContext). A retry
//     that found the pod would otherwise enqueue at whatever instant its
//     ticker fired, concurrently with workers woken at that instant.
//
// Spans are also started under the queues' locks ("insert", "Forget"):
// those never park.

// fieldLogger is the controller's logger: it keeps the fields it is
// given (the queue's name, the key) and discards every entry.
type fieldLogger struct{ fields log.Fields }

func loggerOf(ctx context.Context) fieldLogger {
	if l, ok := log.G(ctx).(fieldLogger); ok {
		return l
	}
	return fieldLogger{}
}

func (l fieldLogger) field(k string) string {
	if v, ok := l.fields[k]; ok {
		return fmt.Sprint(v)
	}
	return ""
}

func (fieldLogger) Debug(...any)                 {}
func (fieldLogger) Debugf(string, ...any)        {}
func (fieldLogger) Info(...any)                  {}
func (fieldLogger) Infof(string, ...any)         {}
func (fieldLogger) Warn(...any)                  {}
func (fieldLogger) Warnf(string, ...any)         {}
func (fieldLogger) Error(...any)                 {}
func (fieldLogger) Errorf(string, ...any)        {}
func (fieldLogger) Fatal(...any)                 {}
func (fieldLogger) Fatalf(string, ...any)        {}
func (l fieldLogger) WithError(error) log.Logger { return l }

func (l fieldLogger) WithField(k string, v any) log.Logger {
	return l.WithFields(log.Fields{k: v})
}

func (l fieldLogger) WithFields(f log.Fields) log.Logger {
	out := maps.Clone(l.fields)
	if out == nil {
		out = log.Fields{}
	}
	maps.Copy(out, f)
	return fieldLogger{fields: out}
}

// statusQueue is the name the controller gives its status queue (the
// handler's "queue" field).
const statusQueue = "syncPodStatusFromProvider"

// tracer is one controller generation's tracer.
type tracer struct {
	w   *World
	gen int
}

// controllerContext is the base context of generation gen: our tracer,
// and a logger that keeps fields.
func (w *World) controllerContext(gen int) context.Context {
	ctx := log.WithLogger(context.Background(), fieldLogger{})
	return trace.WithTracer(ctx, tracer{w: w, gen: gen})
}

// StartSpan implements trace.Tracer.
func (t tracer) StartSpan(ctx context.Context, name string) (context.Context, trace.Span) {
	s := &span{t: t, logger: loggerOf(ctx)}
	switch name {
	case "handleQueueItemObject":
		key, queue := s.logger.field("key"), s.logger.field("queue")
		t.w.gates.Park(&callgate.Call{Gen: t.gen, Op: "handler", Key: key, Caller: queue, Ctx: ctx})
		if queue == statusQueue {
			t.w.mu.Lock()
			t.w.ev.StatusRuns[key]++
			t.w.mu.Unlock()
		}
	case "deleteDanglingPod":
		t.w.gates.Park(&callgate.Call{Gen: t.gen, Op: "dangling", Key: t.w.danglingKey(t.gen),
			Caller: "deleteDanglingPods", Ctx: ctx})
	case "enqueuePodStatusUpdate":
		t.w.mu.Lock()
		s.notify = t.w.notifySeq
		t.w.mu.Unlock()
		ctx = pollContext{Context: ctx, s: s}
	}
	return ctx, s
}

// span is a started span: it keeps the fields it is given in the
// context's logger.
type span struct {
	t      tracer
	logger fieldLogger
	// notify: enqueuePodStatusUpdate's span, the number of the notify
	// move that called it.
	notify int
}

// End records, for enqueuePodStatusUpdate's span, when a notification
// it did not drop was done with (stored in the tracking entry and
// enqueued, or found equal to the one stored), in the order of the
// world's status events (the classifier reads it, VM).
func (s *span) End() {
	if s.notify == 0 {
		return
	}
	w := s.t.w
	w.mu.Lock()
	defer w.mu.Unlock()
	if n := w.ev.Notifies[s.notify]; n.Dropped == "" {
		w.statusSeq++
		n.Accepted = w.statusSeq
		w.ev.Notifies[s.notify] = n
	}
}

// SetStatus records a notification that enqueuePodStatusUpdate dropped
// (its span's status is set only on the paths that return without
// enqueuing; the classifier reads it, VL).
func (s *span) SetStatus(err error) {
	if s.notify == 0 || err == nil {
		return
	}
	s.t.w.mu.Lock()
	defer s.t.w.mu.Unlock()
	n := s.t.w.ev.Notifies[s.notify]
	n.Dropped = dropReason(err)
	s.t.w.ev.Notifies[s.notify] = n
}
func (s *span) Logger() log.Logger { return s.logger }

func (s *span) WithField(ctx context.Context, k string, v any) context.Context {
	return s.WithFields(ctx, log.Fields{k: v})
}

func (s *span) WithFields(ctx context.Context, f log.Fields) context.Context {
	s.logger = s.logger.WithFields(f).(fieldLogger)
	return log.WithLogger(ctx, loggerOf(ctx).WithFields(f))
}

// pollContext is the context of a notification's poll loop: the loop's
// ctx.Err() before each retry parks ("poll"); any other Err is the
// context's own.
type pollContext struct {
	context.Context
	s *span
}

func (p pollContext) Err() error {
	if err := p.Context.Err(); err != nil {
		return err
	}
	// The poll's timeout is a whole number of its periods (20 × 151 ms),
	// so its last tick and its deadline's timer fire at one fake instant,
	// and whether the timer's cancel has run when the loop asks is the
	// scheduler's: one way the loop parks once more, the other it ends. At
	// the deadline it has ended, whichever goroutine ran first.
	if dl, ok := p.Context.Deadline(); ok && !time.Now().Before(dl) {
		return context.DeadlineExceeded
	}
	if !calledFromPollLoop() {
		return nil
	}
	c := &callgate.Call{Gen: p.s.t.gen, Op: "poll", Key: p.s.logger.field("key"),
		Caller: fmt.Sprintf("notify%d", p.s.notify), Ctx: p.Context}
	if p.s.t.w.gates.Park(c) == callgate.Dead {
		return context.Canceled
	}
	return p.Context.Err()
}

// calledFromPollLoop: the caller is apimachinery's poll loop.
func calledFromPollLoop() bool {
	pcs := make([]uintptr, 6)
	n := runtime.Callers(3, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		if strings.HasSuffix(f.Function, "/util/wait.loopConditionUntilContext") {
			return true
		}
		if !more {
			return false
		}
	}
}

// danglingKey is the pod of the deleteDanglingPods goroutine calling it:
// the goroutine's second argument, as its stack trace prints it, is one
// of the pods generation gen's GetPods returned (the pointer is an
// identity only, never ordered). The runtime marks an argument it cannot
// print accurately with "?"; then, and if the frame is missing, the key
// is "?" and the duplicate-label check reports it.
func (w *World) danglingKey(gen int) string {
	buf := make([]byte, 16<<10)
	buf = buf[:runtime.Stack(buf, false)]
	const frame = "node.(*PodController).deleteDanglingPods.func1("
	for _, line := range strings.Split(string(buf), "\n") {
		i := strings.Index(line, frame)
		if i < 0 || !strings.HasSuffix(line, ")") {
			continue
		}
		args := line[i+len(frame) : len(line)-1]
		ptr := strings.TrimSpace(args[strings.LastIndex(args, ",")+1:])
		w.mu.Lock()
		defer w.mu.Unlock()
		if key, ok := w.ev.PodsGiven[gen][ptr]; ok {
			return key
		}
		return "?"
	}
	return "?"
}

// dropReason names why enqueuePodStatusUpdate dropped a notification.
func dropReason(err error) string {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "poll timeout"
	case errors.Is(err, context.Canceled):
		return "context cancelled"
	case apierrors.IsNotFound(err):
		return "not in the lister"
	}
	return "error: " + err.Error()
}
