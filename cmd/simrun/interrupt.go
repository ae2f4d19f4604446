package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// interrupts is a command's Ctrl-C (SIGINT or SIGTERM) handling, installed
// before any work. The first signal cancels ctx: a sweep stops handing out
// seeds, the seeds in flight finish, and the results so far are reported
// and written. A second signal runs the abort function (which ends the
// output files, so they stay valid) and exits 130 at once.
type interrupts struct {
	ctx    context.Context
	cancel context.CancelFunc
	ch     chan os.Signal
	stop   chan struct{}
	mu     sync.Mutex
	abort  func()
	exit   func(code int) // os.Exit; a test's stand-in
}

func newInterrupts(stderr io.Writer) *interrupts {
	in := &interrupts{ch: make(chan os.Signal, 2), stop: make(chan struct{}), exit: os.Exit}
	in.ctx, in.cancel = context.WithCancel(context.Background())
	signal.Notify(in.ch, os.Interrupt, syscall.SIGTERM)
	go in.loop(stderr)
	return in
}

func (in *interrupts) loop(stderr io.Writer) {
	select {
	case <-in.ch:
	case <-in.stop:
		return
	}
	in.cancel()
	fmt.Fprintln(stderr, "simrun: interrupted: finishing the seeds in flight (interrupt again to stop at once)")
	select {
	case <-in.ch:
	case <-in.stop:
		return
	}
	in.mu.Lock()
	if in.abort != nil {
		in.abort()
	}
	in.mu.Unlock()
	fmt.Fprintln(stderr, "simrun: interrupted again: stopped; the results so far are written")
	in.exit(130)
}

// onAbort sets what a second signal does before exiting.
func (in *interrupts) onAbort(f func()) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.abort = f
}

// done uninstalls the handler: signals then have their default effect.
func (in *interrupts) done() {
	in.mu.Lock()
	defer in.mu.Unlock()
	signal.Stop(in.ch)
	select {
	case <-in.stop:
	default:
		close(in.stop)
	}
	in.cancel()
}

// openSink opens a sink whose files a second signal ends: under the lock,
// so an abort during the opening waits for it and then ends the files.
func (in *interrupts) openSink(jsonPath, junitPath, strategy, repro string, stdout io.Writer, run runRecord,
	planned uint64) (*sink, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	out, err := openSink(jsonPath, junitPath, strategy, repro, stdout, run, planned)
	if err == nil {
		in.abort = func() { out.finish(true) }
	}
	return out, err
}
