package realvk

import (
	"cmp"
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/realvk/explain"
)

// finalState is the API server's and the provider's state at the end (the
// VKSettled note), by UID; queued is what the controller's queues held
// once the run settled, before the controller was stopped.
func (d *Driver) finalState(queued int) history.VKFinal {
	w := d.W
	w.mu.Lock()
	defer w.mu.Unlock()
	items, _ := w.api.List()
	var api []history.VKAPIPod
	for _, p := range items {
		api = append(api, history.VKAPIPod{UID: p.UID, Name: p.Name, Deleting: p.DeletionTimestamp != nil,
			Phase: p.Status.Phase, Version: history.VKStatusVersion(p.Status.Message)})
	}
	slices.SortFunc(api, func(x, y history.VKAPIPod) int { return cmp.Or(cmp.Compare(x.UID, y.UID), cmp.Compare(x.Name, y.Name)) })
	return history.VKFinal{API: api, Provider: w.finalProvider(), Queued: queued}
}

// classify explains f by a known upstream deviation (package explain);
// "" if none fits. The world's lock is held while the classifier reads
// what the world recorded.
func (d *Driver) classify(f Finding) string {
	w := d.W
	w.mu.Lock()
	defer w.mu.Unlock()
	facts := explain.Facts{Evidence: w.ev, Gen: w.gen, WatchFrom: w.watchFrom, Ready: w.ready, End: d.final}
	return facts.Classify(f.Check, f.Message)
}

// report records a driver finding at the current step, classified.
func (d *Driver) report(check, msg string) {
	f := Finding{Check: check, Message: msg, Step: d.Step}
	f.Class = d.classify(f)
	d.findings = append(d.findings, f)
	d.tracef("  finding %s", f)
}

// verdict adds the shared VK oracle's violations, classified.
func (d *Driver) verdict() {
	for _, v := range d.tape.finish() {
		f := Finding{Check: v.Invariant, Message: v.Message, Step: d.stepOf(v.Seq)}
		f.Class = d.classify(f)
		d.findings = append(d.findings, f)
		d.tracef("finding %s", f)
	}
}

// stepOf is the driver step an event seq was recorded in (0: at the end).
func (d *Driver) stepOf(seq int64) int {
	if seq <= 0 || int(seq) > len(d.tape.steps) {
		return 0
	}
	return d.tape.steps[seq-1]
}

func (d *Driver) snapshotEnd() {
	w := d.W
	w.mu.Lock()
	defer w.mu.Unlock()
	e := &explain.End{APIByName: map[string]types.UID{}, ProviderByName: map[string]types.UID{}, APIPhase: map[types.UID]v1.PodPhase{},
		APIVersion: map[types.UID]int{}}
	items, _ := w.api.List()
	for _, p := range items {
		e.APIByName[p.Name] = p.UID
		e.APIPhase[p.UID] = p.Status.Phase
		e.APIVersion[p.UID] = history.VKStatusVersion(p.Status.Message)
	}
	for _, key := range w.backendKeys() {
		b := w.backend[key]
		e.ProviderByName[b.pod.Name] = b.pod.UID
	}
	d.final = e
}

// checkNotified runs right after Settle, which offers every notification
// due while the controller runs: a provider status still due then never
// reached the controller, because it registered no callback (NotifyPods)
// in this generation, or because the settle's bound cut the deliveries
// off. Either way the oracle's VK2, which compares the API with the last
// status notified, never saw that status, so it is the driver's liveness
// finding: the provider's statuses must reach the controller.
func (d *Driver) checkNotified() {
	w := d.W
	w.mu.Lock()
	running, registered := w.running, w.notifyCB[w.gen] != nil
	w.mu.Unlock()
	if !running {
		return
	}
	for _, key := range w.Notifiable() {
		why := "the controller registered no notification callback"
		if registered {
			why = "the settle phase ended first"
		}
		d.report("liveness", fmt.Sprintf("the provider's status of %s was never notified: %s", key, why))
	}
}
