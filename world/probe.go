package world

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/plan"
)

// probe returns what every public query method of the pod workers answers
// at the end of a critical section of the pod lock, for the LockReleasing
// event: the per-UID queries for every pod the plan named so far,
// PodsSynced, and IsPodForMirrorPodTerminatingByFullName for every full name
// among them. They are called from the goroutine that holds the lock
// (simrt.Runtime.Probe: no scheduling point, so the schedule is the one
// without them). Known, which no query answers, is the pod workers' record
// list (the target's bookkeeping, history.Answers), read only while the
// internal invariants are on: in observable-only mode it stays false and
// the oracles derive it from the history (history.KnownFromHistory).
//
// Only the answers that can have changed since the previous release are
// asked again (probeTouched); every other answer is the previous release's,
// so the probe still holds every answer for every UID, the same bytes a
// probe asking everything would hold. Why an answer of an untouched UID
// cannot have changed: each per-UID query reads only that UID's record and
// PodsSynced, and IsPodForMirrorPodTerminatingByFullName reads the full
// name's started UID and that UID's record (workers/queries.go,
// workers/static.go). A critical section changes the records of the UIDs it
// works on: the UID of the call its goroutine has in flight (UpdatePod,
// KillPodNow), the worker's own UID (worker/<uid>), the UIDs whose kill
// completions or cancellations fire in it; any call the probe does not know
// may change every record, and so does a kubelet restart (new pod workers).
// SyncKnownPods (workers/known.go) changes only the records it purges (they
// are gone at the release) and the orphans' (records of UIDs not among its
// desired pods): a desired record that is not finished is only read
// (syncKnownTouched). A full name is asked again when a UID that
// bears it was touched. A PodsSynced that changed, or a UID named for the
// first time, makes the probe ask everything. TestIncrementalProbe checks
// the claim directly: in every family and under every catalogued mutant,
// at every release, the incremental probe equals a probe that asks
// everything.
//
// A probe's slices may be shared with the previous release's probe (when
// nothing was touched): they are read-only for every observer.
func (w *World) probe() *history.Probe {
	var p *history.Probe
	w.RT.Probe(func() {
		p = w.probeTouched()
		if w.probes.check {
			if full := w.probeAll(); !probesEqual(p, full) && w.probes.mismatch == "" {
				w.probes.mismatch = fmt.Sprintf("at %v (step %d, goroutine %s, touched %v, all %v): incremental %+v, full %+v",
					w.S.Elapsed(), w.S.Steps(), w.S.Goroutine(), w.probes.touched, w.probes.all, *p, *full)
			}
		}
	})
	w.probes.last = p
	return p
}

// probeMemo is what the probe keeps between releases of the pod lock.
type probeMemo struct {
	last *history.Probe // the previous release's (nil: ask everything)
	// The critical section in progress: the UIDs it touched, or all.
	touched []types.UID
	all     bool
	holder  string
	calls   []probeCall // the calls in flight, one per goroutine (a few)
	// desired is the desired UIDs (sorted) of the SyncKnownPods in the
	// critical section, if any (syncKnown); forgetKnown is a wrong probe
	// for tests: it takes nothing a SyncKnownPods changed as touched.
	desired                []string
	syncKnown, forgetKnown bool
	checked                []types.UID // checkInvariants' buffer
	// names are the full names the probe asks about (fullNames) for the
	// first namesOf UIDs of World.uids.
	names   []string
	namesOf int
	// check: compare every probe with one that asks everything (tests);
	// mismatch is the first difference.
	check    bool
	mismatch string
	// made makes the run's probes (a slab at a time).
	made history.Probes
	// podsBuf and mirrorBuf are probeAll's buffers.
	podsBuf   []history.PodAnswers
	mirrorBuf []history.MirrorAnswer
}

// probeCall is a client call in flight: the UID it works on, or all, or,
// for a SyncKnownPods (known), the desired UIDs it was given.
type probeCall struct {
	g       string // the calling goroutine
	id      int
	uid     types.UID
	all     bool
	known   bool
	desired []string
}

// probeKinds are the kinds noteForProbe reads (a bit for each).
const probeKinds = 1<<history.ClientCall | 1<<history.ClientReturn | 1<<history.LockAcquired |
	1<<history.Fired | 1<<history.LockReleasing | 1<<history.Restarted

// noteForProbe follows the event stream for probeTouched: which UIDs the
// critical section in progress touched.
func (w *World) noteForProbe(ev *history.Event) {
	m := &w.probes
	g := ev.Goroutine
	switch ev.Kind {
	case history.ClientCall:
		c := probeCallOf(ev)
		c.g = g
		if i := m.callOf(g); i >= 0 {
			m.calls[i] = c
		} else {
			m.calls = append(m.calls, c)
		}
		if m.holder == g {
			m.touch(c)
		}
	case history.ClientReturn:
		if i := m.callOf(g); i >= 0 && m.calls[i].id == ev.ID {
			m.calls = slices.Delete(m.calls, i, i+1)
		}
	case history.LockAcquired:
		m.holder, m.touched, m.all, m.syncKnown = g, m.touched[:0], false, false
		if uid, _, ok := history.WorkerOf(g); ok {
			m.touched = append(m.touched, types.UID(plan.SameUID(uid)))
		}
		if i := m.callOf(g); i >= 0 {
			m.touch(m.calls[i])
		}
	case history.Fired:
		switch f := ev.Input.(type) {
		case ops.CancelFired:
			m.touched = append(m.touched, types.UID(f.UID))
		case ops.CompletionFired:
			m.touched = append(m.touched, types.UID(f.UID))
		default:
			m.all = true
		}
	case history.LockReleasing:
		m.holder, m.touched, m.all, m.syncKnown = "", m.touched[:0], false, false
	case history.Restarted:
		m.last, m.holder, m.all = nil, "", false
		m.calls = m.calls[:0]
	}
}

// callOf is the index of g's call in flight in calls, -1 if none.
func (m *probeMemo) callOf(g string) int {
	for i := range m.calls {
		if m.calls[i].g == g {
			return i
		}
	}
	return -1
}

func (m *probeMemo) touch(c probeCall) {
	if c.all || (c.known && m.syncKnown) {
		m.all = true // two SyncKnownPods in one section: not expected, ask everything
	} else if c.known {
		m.syncKnown, m.desired = true, c.desired
	} else if c.uid != "" {
		m.touched = append(m.touched, c.uid)
	}
}

// probeCallOf is the UID a call works on: queries work on none, a
// SyncKnownPods (or a call the probe does not know) on every one.
func probeCallOf(ev *history.Event) probeCall {
	c := probeCall{id: ev.ID}
	switch in := ev.Input.(type) {
	case ops.UpdatePod:
		c.uid = types.UID(in.Pod.UID)
	case ops.KillPodNowDone:
		c.uid = types.UID(in.UID)
	case ops.Query:
	case ops.SyncKnownPods:
		c.known, c.desired = true, in.Desired
	default:
		c.all = true
	}
	return c
}

// probeTouched asks again what the critical section can have changed (see
// probe) and takes every other answer from the previous probe.
func (w *World) probeTouched() *history.Probe {
	m, pw := &w.probes, w.PW
	uids, names := w.sortedUIDs(), w.fullNames()
	last := m.last
	if m.all || last == nil || len(last.Pods) != len(uids) || len(last.Mirror) != len(names) || last.PodsSynced != pw.PodsSyncedLocked() ||
		(m.syncKnown && w.internalOff) {
		return w.probeAll()
	}
	if m.syncKnown && !m.forgetKnown {
		w.syncKnownTouched(pw.KnownUIDsLocked()) // internal on: else probeAll
	}
	// The probe is last until an answer differs, then a copy (its Mirror too once a mirror answer differs).
	p, mirror := last, false
	for _, uid := range m.touched {
		c := w.pod(uid)
		if c == nil {
			continue // not a pod of the plan: never probed
		}
		if a := w.answersOf(uid); a != p.Pods[c.at].Answers {
			if p == last {
				p = m.made.Copy(last)
			}
			p.Pods[c.at].Answers = a
		}
		j := c.nameAt // names holds every plan pod's full name
		if t := pw.MirrorTerminatingLocked(c.fullName()); t != p.Mirror[j].Terminating {
			if p == last {
				p = m.made.Copy(last)
			}
			if !mirror {
				p.Mirror, mirror = slices.Clone(p.Mirror), true
			}
			p.Mirror[j].Terminating = t
		}
	}
	return p // last when the answers are the same: the same probe
}

// checkInvariants checks the pod workers' internal invariants (unless
// they are off) at a release of the pod lock: only the touched records
// (workers.CheckInvariantsOfLocked), and after a SyncKnownPods the orphans',
// when the probe would ask only about those, for the reason it does (see
// probe); all of them otherwise. With probes.check, each verdict is
// compared with a check of every record.
func (w *World) checkInvariants() error {
	m, pw := &w.probes, w.PW
	if w.internalOff {
		return nil
	} else if !w.sending() || m.all || m.last == nil {
		return pw.CheckInvariantsLocked()
	}
	touched := m.touched
	if m.syncKnown && !m.forgetKnown { // and the orphans' records (syncKnownTouched; the purged are gone)
		touched = append(m.checked[:0], touched...)
		for _, uid := range pw.KnownUIDsLocked() {
			if _, desired := slices.BinarySearch(m.desired, string(uid)); !desired {
				touched = append(touched, uid)
			}
		}
		m.checked = touched
	}
	err := pw.CheckInvariantsOfLocked(touched)
	if m.check && m.mismatch == "" {
		if full := pw.CheckInvariantsLocked(); fmt.Sprint(err) != fmt.Sprint(full) {
			m.mismatch = fmt.Sprintf("invariants at %v (step %d, goroutine %s, touched %v): touched %v, every record %v",
				w.S.Elapsed(), w.S.Steps(), w.S.Goroutine(), touched, err, full)
		}
	}
	return err
}

// syncKnownTouched adds to the touched UIDs what a SyncKnownPods in the
// critical section can have changed: the records it purged (known at the
// previous release, gone now) and the orphans' (a record whose UID is not
// among the desired ones). records are the records now, sorted.
func (w *World) syncKnownTouched(records []types.UID) {
	m := &w.probes
	for _, uid := range records {
		if _, desired := slices.BinarySearch(m.desired, string(uid)); !desired {
			m.touched = append(m.touched, uid)
		}
	}
	for _, a := range m.last.Pods {
		if _, kept := slices.BinarySearch(records, a.UID); a.Known && !kept {
			m.touched = append(m.touched, a.UID)
		}
	}
}

// probeAll asks every query for every UID and full name.
func (w *World) probeAll() *history.Probe {
	pw, m := w.PW, &w.probes
	synced := pw.PodsSyncedLocked()
	pods := m.podsBuf[:0]
	for _, uid := range w.sortedUIDs() {
		pods = append(pods, history.PodAnswers{UID: uid, Answers: w.answersOf(uid)})
	}
	mirror := m.mirrorBuf[:0]
	for _, f := range w.fullNames() {
		mirror = append(mirror, history.MirrorAnswer{FullName: f, Terminating: pw.MirrorTerminatingLocked(f)})
	}
	m.podsBuf, m.mirrorBuf = pods, mirror
	// The answers were built in the buffers; a probe keeps the previous
	// probe's slices when they hold the same answers (probes are read
	// only), else copies of the buffers.
	last := m.last
	if last != nil && slices.Equal(mirror, last.Mirror) {
		mirror = last.Mirror
	} else {
		mirror = w.kept.mirrors.Clone(mirror)
	}
	if last != nil && slices.Equal(pods, last.Pods) {
		return m.made.Sharing(synced, last.Pods, mirror)
	}
	return m.made.New(synced, pods, mirror)
}

// answersOf asks every per-UID query about uid, and whether it has a
// record (Known, false while the internal invariants are off).
func (w *World) answersOf(uid types.UID) history.Answers {
	a, known := w.PW.AnswersLocked(uid) // the query methods' order (ops.QueryKind's)
	return history.Answers{Known: known && !w.internalOff, KnownTerminated: a[0], CouldHaveRunning: a[1], BeFinished: a[2],
		TerminationRequested: a[3], ContainersBeTerminating: a[4], RuntimeBeRemoved: a[5], ContentBeRemoved: a[6]}
}

// probesEqual reports whether two probes hold the same answers.
func probesEqual(a, b *history.Probe) bool {
	return a.PodsSynced == b.PodsSynced && slices.Equal(a.Pods, b.Pods) && slices.Equal(a.Mirror, b.Mirror)
}

// fullNames is the sorted full names of the pods the plan named so far,
// recomputed only when a pod was added (w.uids grows, never shrinks).
func (w *World) fullNames() []string {
	m := &w.probes
	if m.namesOf == len(w.uids) {
		return m.names
	}
	names := w.kept.names.Make(len(w.uids)) // a new list: the old one may still be read
	for _, uid := range w.uids {
		names = append(names, w.pod(uid).fullName())
	}
	slices.Sort(names)
	m.names, m.namesOf = slices.Compact(names), len(w.uids)
	for _, p := range w.inOrder {
		p.nameAt, _ = slices.BinarySearch(m.names, p.fullName())
	}
	return m.names
}
