package realkubelet

import (
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/realkubelet/podworkers"
)

// Holding wake-ups (opt-in, the "hold-wakes" move): upstream's own test
// hook, podWorkers.workerChannelFn ("exposed for testing to allow unit
// tests to impose delays in channel communication", the WorkChannel of
// pod_workers_test.go), is set so that every wake-up of a worker goroutine
// waits until the driver moves it ("wake <uid>"). Then a
// worker takes its pending update only when the seed says so: a kill can
// land between a create and the worker's first take (the P→T shortcut of
// early-kill), and updates coalesce before a take. The field is unexported:
// podworkers.SetWorkerChannelFn sets it, refusing on drift; the pipes the
// hook hands the workers are the gates' (syncgate/wakes.go).

// holdWakes sets the hook: from now on every worker's wake-up waits at
// its gate (only as a script's first move, before any worker exists).
func (d *Driver) holdWakes() {
	if err := podworkers.SetWorkerChannelFn(d.pw, d.gates.ChannelFn); err != nil {
		panic(err)
	}
}

// wake moves uid's oldest held wake-up to its worker; a late one (an
// older incarnation's worker) is remembered for the step's checks (GE).
func (d *Driver) wake(uid types.UID) {
	if _, late := d.gates.ReleaseWake(uid); late {
		d.lateNow = uid
	}
}
