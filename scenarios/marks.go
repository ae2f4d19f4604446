package scenarios

import (
	"slices"

	"github.com/podsim/podsim/model"
)

// Coverage marks: situations a family exists to reach. A family whose
// marks stay at zero over many seeds has a generator that misses its
// point (TestFamiliesReachTheirMarks).
const (
	MarkKillDuringSyncPod      = "kill-during-syncpod"      // termination requested while SyncPod runs
	MarkCancelDuringSyncPod    = "cancel-during-syncpod"    // a running SyncPod's context cancelled
	MarkGraceShortened         = "grace-shortened"          // cancel while SyncTerminatingPod runs
	MarkEarlyKill              = "early-kill"               // terminating before any SyncPod
	MarkSyncKnownDuringSync    = "synckn-during-sync"       // SyncKnownPods while a callback runs
	MarkStaticWaiterKilled     = "static-waiter-killed"     // a static pod killed before it ever synced
	MarkStaticExcluded         = "static-excluded"          // two static pods of one name alive, one waiting
	MarkRestartAfterFinish     = "restart-after-finish"     // SyncPod of a UID that had finished (reuse)
	MarkRuntimePodKilled       = "runtime-pod-killed"       // SyncTerminatingRuntimePod ran
	MarkNaturalCompletion      = "natural-completion"       // SyncPod reported isTerminal
	MarkTerminatingRetried     = "terminating-retried"      // SyncTerminatingPod failed, then ran again
	MarkOrphanDriven           = "orphan-driven"            // SyncKnownPods started an orphan's termination
	MarkKillNowTimedOut        = "killnow-timed-out"        // killPodNow gave up
	MarkCompletionFired        = "completion-fired"         // a kill's completion fired
	MarkUpdateWhileTerminating = "update-while-terminating" // an update reached a terminating pod

	// The kubelet-level world (Plan.Node), set by the world's actors.
	MarkAdmissionRejected       = "admission-rejected"        // a pod did not fit and was rejected
	MarkAdmittedAfterRelease    = "admitted-after-release"    // a pod fit only because a pod in config no longer counted
	MarkRejectedDeletedGone     = "rejected-deleted-gone"     // a pod rejected at admission was deleted from the API
	MarkTerminalWriteDeferred   = "terminal-write-deferred"   // a terminal phase waited for CouldHaveRunning=false
	MarkShutdownKilled          = "shutdown-killed"           // the node shutdown killed a pod in time
	MarkShutdownAdmissionClosed = "shutdown-admission-closed" // a pod was rejected during the node shutdown
	MarkShutdownGroupGraceOver  = "shutdown-group-grace-over" // a shutdown group's grace ran out before its kills returned
	MarkEvictionCleanupWaited   = "eviction-cleanup-waited"   // the eviction manager saw its victim finished
	MarkEvictionSpared          = "eviction-spared"           // an eviction skipped a static, critical or inactive pod
	MarkRestartDeletedGone      = "restart-deleted-gone"      // a pod deleted before a kubelet restart was deleted from the API after it
	MarkNameTaken               = "name-taken"                // a create was refused: another pod object held the name
	MarkRecreatedInGrace        = "recreated-in-grace"        // a pod object was created while a same-name one's deletion grace ran
	MarkGraceReaped             = "grace-reaped"              // the grace reaper force-deleted an object whose grace expired
	// Set from the event stream.
	MarkRestartShortcut     = "restart-terminal-shortcut" // after a kubelet restart, a pod's first call was SyncTerminatedPod
	MarkRestartDuringSync   = "restart-during-sync"       // the kubelet restarted while a sync call was in flight
	MarkRestartOrphanKilled = "restart-orphan-killed"     // after a kubelet restart, a runtime-only pod was killed
)

// mark sets a coverage mark from the world's own actors (the kubelet-level
// situations the event stream does not show).
func (w *World) mark(name string) {
	if w.marks == nil {
		w.marks = map[string]bool{}
	}
	w.marks[name] = true
}

// merge adds the world's marks.
func (m *marker) merge(marks map[string]bool) {
	for k, on := range marks {
		m.marks[k] = m.marks[k] || on
	}
}

// marker is the Observer that sets the marks of one run.
type marker struct {
	marks    map[string]bool
	inFlight map[string]model.SyncFn // by UID
	synced   map[string]bool         // UIDs that ever began SyncPod
	finished map[string]bool         // UIDs whose SyncTerminatedPod succeeded
	failed   map[string]bool         // UIDs whose SyncTerminatingPod failed last
	static   map[string]string       // UID → full name, static pods
	killed   map[string]bool         // UIDs with termination requested
	natural  map[string]bool         // UIDs whose SyncPod reported isTerminal
	desired  map[string]bool         // nil until the first SyncKnownPods
	waits    map[int]bool            // open killPodNow waits, by call ID
	// restarts counts kubelet restarts; called: UIDs with a callback since
	// the last one.
	restarts int
	called   map[string]bool
}

func newMarker() *marker {
	return &marker{marks: map[string]bool{}, inFlight: map[string]model.SyncFn{}, synced: map[string]bool{},
		finished: map[string]bool{}, failed: map[string]bool{}, static: map[string]string{},
		killed: map[string]bool{}, natural: map[string]bool{}, waits: map[int]bool{}, called: map[string]bool{}}
}

func (m *marker) Observe(_ *World, ev Event) {
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
			m.marks[MarkCancelDuringSyncPod] = true
		case model.SyncTerminatingPod:
			m.marks[MarkGraceShortened] = true
		}
	case model.CompletionFired:
		m.marks[MarkCompletionFired] = true
	case model.KillPodNowDone:
		m.waits[ev.ID] = true
	}
	if ev.Kind == ClientReturn && m.waits[ev.ID] {
		delete(m.waits, ev.ID)
		if ans, _ := ev.Output.(model.Answer); !bool(ans) {
			m.marks[MarkKillNowTimedOut] = true
		}
	}
}

func (m *marker) update(in model.UpdatePod) {
	uid := in.Pod.UID
	if in.Pod.Static {
		m.static[uid] = in.Pod.FullName()
	}
	terminating := in.Type == model.Kill || in.Pod.DeletionTimestamp || in.Pod.Phase.Terminal()
	if m.killed[uid] && !terminating && in.Type != model.Create {
		m.marks[MarkUpdateWhileTerminating] = true
	}
	if !terminating {
		return
	}
	if m.inFlight[uid] == model.SyncPod {
		m.marks[MarkKillDuringSyncPod] = true
	}
	if !m.synced[uid] {
		m.marks[MarkEarlyKill] = true
		if in.Pod.Static {
			m.marks[MarkStaticWaiterKilled] = m.marks[MarkStaticWaiterKilled] || m.otherStaticAlive(uid)
		}
	}
	m.killed[uid] = true
}

func (m *marker) otherStaticAlive(uid string) bool {
	for other, name := range m.static {
		if other != uid && name == m.static[uid] && m.synced[other] && !m.finished[other] {
			return true
		}
	}
	return false
}

func (m *marker) syncKnown(in model.SyncKnownPods) {
	for _, fn := range m.inFlight {
		if fn != model.NoSync {
			m.marks[MarkSyncKnownDuringSync] = true
		}
	}
	m.desired = map[string]bool{}
	for _, uid := range in.Desired {
		m.desired[uid] = true
	}
}

// restarted: the kubelet restarted; what the marker knows of the pod
// workers starts afresh.
func (m *marker) restarted() {
	for _, fn := range m.inFlight {
		if fn != model.NoSync {
			m.marks[MarkRestartDuringSync] = true
		}
	}
	m.restarts++
	m.inFlight, m.called = map[string]model.SyncFn{}, map[string]bool{}
	m.synced, m.finished, m.failed = map[string]bool{}, map[string]bool{}, map[string]bool{}
	m.killed, m.natural, m.desired = map[string]bool{}, map[string]bool{}, nil
}

func (m *marker) begin(in model.SyncBegin) {
	uid := in.UID
	if m.restarts > 0 && !m.called[uid] {
		switch in.Fn {
		case model.SyncTerminatedPod:
			m.marks[MarkRestartShortcut] = true
		case model.SyncTerminatingRuntimePod:
			m.marks[MarkRestartOrphanKilled] = true
		}
	}
	m.called[uid] = true
	m.inFlight[uid] = in.Fn
	switch in.Fn {
	case model.SyncPod:
		if m.finished[uid] {
			m.marks[MarkRestartAfterFinish] = true
			delete(m.finished, uid)
			delete(m.killed, uid)
		}
		m.synced[uid] = true
		if name, ok := m.static[uid]; ok {
			for other, n := range m.static {
				if other != uid && n == name && !m.synced[other] && !m.killed[other] {
					m.marks[MarkStaticExcluded] = true
				}
			}
		}
	case model.SyncTerminatingPod:
		if m.failed[uid] {
			m.marks[MarkTerminatingRetried] = true
		}
		if m.desired != nil && !m.desired[uid] && !m.killed[uid] && !m.natural[uid] {
			m.marks[MarkOrphanDriven] = true
		}
	case model.SyncTerminatingRuntimePod:
		m.marks[MarkRuntimePodKilled] = true
	}
}

func (m *marker) end(in model.SyncEnd) {
	m.inFlight[in.UID] = model.NoSync
	if in.Fn == model.SyncPod && in.IsTerminal {
		m.marks[MarkNaturalCompletion] = true
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
func (m *marker) sorted() []string {
	var out []string
	for k, on := range m.marks {
		if on {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}
