package history

import (
	"slices"

	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/plan"
)

// Merge adds the world's marks.
func (m *Marker) Merge(marks map[string]bool) {
	for k, on := range marks {
		m.marks[k] = m.marks[k] || on
	}
}

// Marker is the Observer that sets the marks of one run.
type Marker struct {
	marks    map[string]bool
	pods     *Lookup[string, *markerPod] // by UID
	desired  []string                    // the last SyncKnownPods' desired UIDs, sorted
	sawKnown bool                        // a SyncKnownPods was seen (since the last restart)
	waits    map[int]bool                // open killPodNow waits, by call ID
	// restarts counts kubelet restarts.
	restarts int
	// allPods are the records pod made this run, in order: pods' values,
	// which the checks over every record range over (a slice, not the
	// map); freePods those of the runs before the last Reset, for pod to
	// empty and reuse (no record outlives its run: only pods holds them).
	allPods, freePods []*markerPod
}

// markerPod is what the Marker knows of one UID. Everything but the static
// name is of the pod workers since the last kubelet restart.
type markerPod struct {
	inFlight ops.SyncFn
	synced   bool   // began SyncPod
	finished bool   // SyncTerminatedPod succeeded
	failed   bool   // SyncTerminatingPod failed last
	killed   bool   // termination requested
	natural  bool   // SyncPod reported isTerminal
	called   bool   // a callback began
	static   string // the full name, static pods ("" otherwise)
}

// MarkerKinds are the kinds of event Observe reads: an event of any other
// kind (a pod-lock section, a note, a failed read, Settled) carries no input
// it looks at, and it changes nothing then, so a caller may hand it only
// these.
var MarkerKinds = [...]EventKind{ClientCall, ClientReturn, CallbackBegin, CallbackEnd, Fired, Restarted}

func NewMarker() *Marker {
	return &Marker{marks: map[string]bool{}, pods: NewLookup[string, *markerPod](), waits: map[int]bool{}}
}

// Reset empties m for a new run, as NewMarker makes it, its maps kept (a
// lane's consecutive seeds reuse one).
func (m *Marker) Reset() {
	clear(m.marks)
	m.pods.Reset()
	clear(m.waits)
	free := append(m.freePods, m.allPods...)
	clear(m.allPods)
	*m = Marker{marks: m.marks, pods: m.pods, waits: m.waits, allPods: m.allPods[:0], freePods: free}
}

// pod returns uid's record, made on first mention.
func (m *Marker) pod(uid string) *markerPod {
	p, _ := m.pods.Get(uid)
	if p == nil {
		p = Reuse(&m.freePods)
		*p = markerPod{}
		m.pods.Set(uid, p)
		m.allPods = append(m.allPods, p)
	}
	return p
}

// inFlight is the callback uid's worker runs (NoSync if none).
func (m *Marker) inFlight(uid string) ops.SyncFn {
	if p, _ := m.pods.Get(uid); p != nil {
		return p.inFlight
	}
	return ops.NoSync
}

func (m *Marker) Observe(ev *Event) {
	if ev.Kind == Restarted {
		m.restarted()
		return
	}
	switch in := ev.Input.(type) {
	case ops.UpdatePod:
		m.update(in)
	case ops.SyncKnownPods:
		m.syncKnown(in)
	case ops.SyncBegin:
		m.begin(in)
	case ops.SyncEnd:
		m.end(in)
	case ops.CancelFired:
		switch m.inFlight(in.UID) {
		case ops.SyncPod:
			m.marks[plan.MarkCancelDuringSyncPod] = true
		case ops.SyncTerminatingPod:
			m.marks[plan.MarkGraceShortened] = true
		}
	case ops.CompletionFired:
		m.marks[plan.MarkCompletionFired] = true
	case ops.KillPodNowDone:
		m.waits[ev.ID] = true
	}
	if ev.Kind == ClientReturn && len(m.waits) > 0 && m.waits[ev.ID] { // most runs wait for no kill
		delete(m.waits, ev.ID)
		if ans, _ := ev.Output.(ops.Answer); !bool(ans) {
			m.marks[plan.MarkKillNowTimedOut] = true
		}
	}
}

func (m *Marker) update(in ops.UpdatePod) {
	p := m.pod(in.Pod.UID)
	if in.Pod.Static { // the full name made only when it changes
		var room [64]byte
		if f := in.Pod.AppendFullName(room[:0]); p.static != string(f) {
			p.static = string(f)
		}
	}
	terminating := in.Type == ops.Kill || in.Pod.DeletionTimestamp || in.Pod.Phase.Terminal()
	if p.killed && !terminating && in.Type != ops.Create {
		m.marks[plan.MarkUpdateWhileTerminating] = true
	}
	if !terminating {
		return
	}
	if p.inFlight == ops.SyncPod {
		m.marks[plan.MarkKillDuringSyncPod] = true
	}
	if !p.synced {
		m.marks[plan.MarkEarlyKill] = true
		if in.Pod.Static {
			m.marks[plan.MarkStaticWaiterKilled] = m.marks[plan.MarkStaticWaiterKilled] || m.otherStaticAlive(p)
		}
	}
	p.killed = true
}

func (m *Marker) otherStaticAlive(p *markerPod) bool {
	for _, other := range m.allPods {
		if other != p && other.static != "" && other.static == p.static && other.synced && !other.finished {
			return true
		}
	}
	return false
}

func (m *Marker) syncKnown(in ops.SyncKnownPods) {
	for _, p := range m.allPods {
		if p.inFlight != ops.NoSync {
			m.marks[plan.MarkSyncKnownDuringSync] = true
		}
	}
	m.desired, m.sawKnown = in.Desired, true
	if !slices.IsSorted(in.Desired) {
		m.desired = slices.Sorted(slices.Values(in.Desired))
	}
}

// restarted: the kubelet restarted; what the Marker knows of the pod
// workers starts afresh (a static pod's full name stays known).
func (m *Marker) restarted() {
	for _, p := range m.allPods {
		if p.inFlight != ops.NoSync {
			m.marks[plan.MarkRestartDuringSync] = true
		}
	}
	m.restarts++
	for _, p := range m.allPods {
		*p = markerPod{static: p.static}
	}
	m.desired, m.sawKnown = nil, false
}

func (m *Marker) begin(in ops.SyncBegin) {
	uid := in.UID
	p := m.pod(uid)
	if m.restarts > 0 && !p.called {
		switch in.Fn {
		case ops.SyncTerminatedPod:
			m.marks[plan.MarkRestartShortcut] = true
		case ops.SyncTerminatingRuntimePod:
			m.marks[plan.MarkRestartOrphanKilled] = true
		}
	}
	p.called = true
	p.inFlight = in.Fn
	switch in.Fn {
	case ops.SyncPod:
		if p.finished {
			m.marks[plan.MarkRestartAfterFinish] = true
			p.finished, p.killed = false, false
		}
		p.synced = true
		if p.static != "" {
			for _, other := range m.allPods {
				if other != p && other.static == p.static && !other.synced && !other.killed {
					m.marks[plan.MarkStaticExcluded] = true
				}
			}
		}
	case ops.SyncTerminatingPod:
		if p.failed {
			m.marks[plan.MarkTerminatingRetried] = true
		}
		if _, desired := Search(m.desired, uid); m.sawKnown && !desired && !p.killed && !p.natural {
			m.marks[plan.MarkOrphanDriven] = true
		}
	case ops.SyncTerminatingRuntimePod:
		m.marks[plan.MarkRuntimePodKilled] = true
	}
}

func (m *Marker) end(in ops.SyncEnd) {
	p := m.pod(in.UID)
	p.inFlight = ops.NoSync
	if in.Fn == ops.SyncPod && in.IsTerminal {
		m.marks[plan.MarkNaturalCompletion] = true
		p.natural = true
	}
	if in.Fn == ops.SyncTerminatingPod {
		p.failed = in.Outcome != ops.OK
	}
	if in.Fn == ops.SyncTerminatedPod && in.Outcome == ops.OK {
		p.finished = true
	}
}

// sorted lists the marks set.
func (m *Marker) Sorted() []string {
	out := make([]string, 0, len(m.marks)) // at its size: no growth
	for k, on := range m.marks {
		if on {
			out = append(out, k)
		}
	}
	if len(out) == 0 {
		return nil // none: nil, as before the list was made at its size
	}
	slices.Sort(out)
	return out
}
