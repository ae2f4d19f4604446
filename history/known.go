package history

import (
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/model/ops"
)

// KnownFromHistory derives Answers.Known, which no query answers, from the
// history alone, for a target judged on what a caller observes (run's
// observable-only mode; a target without record bookkeeping):
//
//   - After the first SyncKnownPods (PodsSynced) a UID without a record
//     answers exactly UnknownAnswers(true), which no record can (its
//     ShouldPodBeFinished implies IsPodKnownTerminated, SPEC §3.1 S9): known
//     is "answers differ from an unknown UID's".
//   - Before it, a record in P or S answers like an unknown UID. An UpdatePod
//     the pod workers accept (a Pod, or a kill of a RunningPod; SPEC §1.4
//     step 1) makes a record in the critical section where it takes effect
//     (the first release of the pod lock by the calling goroutine after its
//     call): the UID is known from then on, until its answers, having
//     differed from an unknown UID's, come back to them (a runtime-only
//     record removes itself after SyncTerminatingRuntimePod; every other
//     removal is SyncKnownPods').
//   - A kubelet restart starts over (new pod workers).
//
// Rewrite returns ev with its Probe's Known fields replaced.
type KnownFromHistory struct {
	pending map[string][]types.UID // accepted UpdatePod calls by goroutine, until they take effect
	named   map[types.UID]int      // 1: an accepted update made a record; 2: its answers differed since
}

// NewKnownFromHistory returns a derivation with nothing seen.
func NewKnownFromHistory() *KnownFromHistory {
	return &KnownFromHistory{pending: map[string][]types.UID{}, named: map[types.UID]int{}}
}

// Rewrite observes ev and returns it, with Known derived if it carries a
// Probe (a copy: the event's own Probe is never changed).
func (k *KnownFromHistory) Rewrite(ev Event) Event {
	switch ev.Kind {
	case Restarted:
		clear(k.pending)
		clear(k.named)
	case ClientCall:
		if u, ok := ev.Input.(ops.UpdatePod); ok && (!u.RuntimeOnly || u.Type == ops.Kill) {
			k.pending[ev.Goroutine] = append(k.pending[ev.Goroutine], types.UID(u.Pod.UID))
		}
	case LockReleasing:
		for _, uid := range k.pending[ev.Goroutine] {
			k.named[uid] = max(k.named[uid], 1)
		}
		delete(k.pending, ev.Goroutine)
		if ev.Probe != nil {
			ev.Probe = k.derive(ev.Probe)
		}
	}
	return ev
}

func (k *KnownFromHistory) derive(p *Probe) *Probe {
	out := &Probe{PodsSynced: p.PodsSynced, Pods: make([]PodAnswers, len(p.Pods)), Mirror: p.Mirror}
	unknown := UnknownAnswers(p.PodsSynced)
	for i, pa := range p.Pods {
		a := pa.Answers
		a.Known = false
		switch n := k.named[pa.UID]; {
		case a != unknown:
			a.Known, k.named[pa.UID] = true, 2
		case p.PodsSynced || n == 2:
			delete(k.named, pa.UID)
		case n == 1:
			a.Known = true
		}
		out.Pods[i] = PodAnswers{UID: pa.UID, Answers: a}
	}
	return out
}
