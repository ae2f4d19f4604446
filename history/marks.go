package history

import (
	"slices"

	"github.com/podsim/podsim/model"
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
	inFlight map[string]model.SyncFn // by UID
	synced   map[string]bool         // UIDs that ever began SyncPod
	finished map[string]bool         // UIDs whose SyncTerminatedPod succeeded
	failed   map[string]bool         // UIDs whose SyncTerminatingPod failed last
	static   map[string]string       // UID → full name, static pods
	killed   map[string]bool         // UIDs with termination requested
	natural  map[string]bool         // UIDs whose SyncPod reported isTerminal
	desired  []string                // the last SyncKnownPods' desired UIDs, sorted
	sawKnown bool                    // a SyncKnownPods was seen (since the last restart)
	waits    map[int]bool            // open killPodNow waits, by call ID
	// restarts counts kubelet restarts; called: UIDs with a callback since
	// the last one.
	restarts int
	called   map[string]bool
}

func NewMarker() *Marker {
	return &Marker{marks: map[string]bool{}, inFlight: map[string]model.SyncFn{}, synced: map[string]bool{},
		finished: map[string]bool{}, failed: map[string]bool{}, static: map[string]string{},
		killed: map[string]bool{}, natural: map[string]bool{}, waits: map[int]bool{}, called: map[string]bool{}}
}

func (m *Marker) Observe(ev Event) {
	if ev.Kind == Restarted {
		m.restarted()
		return
	}
	switch in := ev.Input.(type) {
	case model.UpdatePod:
		m.update(in)
	case model.SyncKnownPods:
		m.syncKnown(in)
	case model.SyncBegin:
		m.begin(in)
	case model.SyncEnd:
		m.end(in)
	case model.CancelFired:
		switch m.inFlight[in.UID] {
		case model.SyncPod:
			m.marks[plan.MarkCancelDuringSyncPod] = true
		case model.SyncTerminatingPod:
			m.marks[plan.MarkGraceShortened] = true
		}
	case model.CompletionFired:
		m.marks[plan.MarkCompletionFired] = true
	case model.KillPodNowDone:
		m.waits[ev.ID] = true
	}
	if ev.Kind == ClientReturn && m.waits[ev.ID] {
		delete(m.waits, ev.ID)
		if ans, _ := ev.Output.(model.Answer); !bool(ans) {
			m.marks[plan.MarkKillNowTimedOut] = true
		}
	}
}

func (m *Marker) update(in model.UpdatePod) {
	uid := in.Pod.UID
	if in.Pod.Static {
		m.static[uid] = in.Pod.FullName()
	}
	terminating := in.Type == model.Kill || in.Pod.DeletionTimestamp || in.Pod.Phase.Terminal()
	if m.killed[uid] && !terminating && in.Type != model.Create {
		m.marks[plan.MarkUpdateWhileTerminating] = true
	}
	if !terminating {
		return
	}
	if m.inFlight[uid] == model.SyncPod {
		m.marks[plan.MarkKillDuringSyncPod] = true
	}
	if !m.synced[uid] {
		m.marks[plan.MarkEarlyKill] = true
		if in.Pod.Static {
			m.marks[plan.MarkStaticWaiterKilled] = m.marks[plan.MarkStaticWaiterKilled] || m.otherStaticAlive(uid)
		}
	}
	m.killed[uid] = true
}

func (m *Marker) otherStaticAlive(uid string) bool {
	for other, name := range m.static {
		if other != uid && name == m.static[uid] && m.synced[other] && !m.finished[other] {
			return true
		}
	}
	return false
}

func (m *Marker) syncKnown(in model.SyncKnownPods) {
	for _, fn := range m.inFlight {
		if fn != model.NoSync {
			m.marks[plan.MarkSyncKnownDuringSync] = true
		}
	}
	m.desired, m.sawKnown = in.Desired, true
	if !slices.IsSorted(in.Desired) {
		m.desired = slices.Sorted(slices.Values(in.Desired))
	}
}

// restarted: the kubelet restarted; what the Marker knows of the pod
// workers starts afresh.
func (m *Marker) restarted() {
	for _, fn := range m.inFlight {
		if fn != model.NoSync {
			m.marks[plan.MarkRestartDuringSync] = true
		}
	}
	m.restarts++
	m.inFlight, m.called = map[string]model.SyncFn{}, map[string]bool{}
	m.synced, m.finished, m.failed = map[string]bool{}, map[string]bool{}, map[string]bool{}
	m.killed, m.natural, m.desired, m.sawKnown = map[string]bool{}, map[string]bool{}, nil, false
}

func (m *Marker) begin(in model.SyncBegin) {
	uid := in.UID
	if m.restarts > 0 && !m.called[uid] {
		switch in.Fn {
		case model.SyncTerminatedPod:
			m.marks[plan.MarkRestartShortcut] = true
		case model.SyncTerminatingRuntimePod:
			m.marks[plan.MarkRestartOrphanKilled] = true
		}
	}
	m.called[uid] = true
	m.inFlight[uid] = in.Fn
	switch in.Fn {
	case model.SyncPod:
		if m.finished[uid] {
			m.marks[plan.MarkRestartAfterFinish] = true
			delete(m.finished, uid)
			delete(m.killed, uid)
		}
		m.synced[uid] = true
		if name, ok := m.static[uid]; ok {
			for other, n := range m.static {
				if other != uid && n == name && !m.synced[other] && !m.killed[other] {
					m.marks[plan.MarkStaticExcluded] = true
				}
			}
		}
	case model.SyncTerminatingPod:
		if m.failed[uid] {
			m.marks[plan.MarkTerminatingRetried] = true
		}
		if _, desired := slices.BinarySearch(m.desired, uid); m.sawKnown && !desired && !m.killed[uid] && !m.natural[uid] {
			m.marks[plan.MarkOrphanDriven] = true
		}
	case model.SyncTerminatingRuntimePod:
		m.marks[plan.MarkRuntimePodKilled] = true
	}
}

func (m *Marker) end(in model.SyncEnd) {
	m.inFlight[in.UID] = model.NoSync
	if in.Fn == model.SyncPod && in.IsTerminal {
		m.marks[plan.MarkNaturalCompletion] = true
		m.natural[in.UID] = true
	}
	if in.Fn == model.SyncTerminatingPod {
		m.failed[in.UID] = in.Outcome != model.OK
	}
	if in.Fn == model.SyncTerminatedPod && in.Outcome == model.OK {
		m.finished[in.UID] = true
	}
}

// sorted lists the marks set.
func (m *Marker) Sorted() []string {
	var out []string
	for k, on := range m.marks {
		if on {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}
