// Package probe is the kubelet world's probe of the pod workers: what every
// public query method of the pod workers answers at the end of a critical
// section of the pod lock, for the LockReleasing event (history.Probe): the
// per-UID queries for every pod the plan named so far, PodsSynced, and
// IsPodForMirrorPodTerminatingByFullName for every full name among them.
// The world calls them from the goroutine that holds the lock
// (simrt.Runtime.Probe: no scheduling point, so the schedule is the one
// without them). Known, which no query answers, is the pod workers' record
// list (the target's bookkeeping, history.Answers), read only while the
// internal invariants are on: in observable-only mode it stays false and
// the oracles derive it from the history (history.KnownFromHistory).
//
// Only the answers that can have changed since the previous release are
// asked again (Memo.Take); every other answer is the previous release's,
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
// first time, makes the probe ask everything. The memo learns what a
// critical section touched from the world's event stream (Memo.Note,
// note.go). World's TestIncrementalProbe checks the claim directly: in
// every family and under every catalogued mutant, at every release, the
// incremental probe equals a probe that asks everything.
//
// The same knowledge lets the world check the pod workers' internal
// invariants of the touched records alone (Memo.CheckInvariants).
//
// A probe's slices may be shared with the previous release's probe (when
// nothing was touched): they are read-only for every observer. The package
// knows no world: each probe is handed the pod workers and the plan's pods.
package probe

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/workers"
	"github.com/podsim/podsim/world/slab"
)

// Memo is what the probe keeps from one release of the pod lock to the
// next. The zero value is ready; Start puts its first buffers in its own
// memory.
type Memo struct {
	last *history.Probe // the previous release's (nil: ask everything)
	// The critical section in progress: the UIDs it touched, or all.
	touched []types.UID
	all     bool
	holder  string
	calls   []call // the calls in flight, one per goroutine (a few)
	// desired is the desired UIDs (sorted) of the SyncKnownPods in the
	// critical section, if any (syncKnown); forgetKnown is a wrong probe
	// for tests: it takes nothing a SyncKnownPods changed as touched.
	desired                []string
	syncKnown, forgetKnown bool
	checked                []types.UID // CheckInvariants' buffer
	// index finds the plan's pods among the UIDs and their full names
	// (index.go).
	index index
	// check: compare every probe with one that asks everything (tests);
	// mismatch is the first difference, at where.
	check    bool
	mismatch string
	where    func() string
	kept     Kept
	// podsBuf and mirrorBuf are askAll's buffers.
	podsBuf   []history.PodAnswers
	mirrorBuf []history.MirrorAnswer
	// first holds the buffers' first arrays, in the memo's memory (Start).
	first struct {
		answers [4]history.PodAnswers
		mirror  [4]history.MirrorAnswer
		touched [8]types.UID
		calls   [4]call
	}
}

// Kept is the memory a memo keeps for its lane's next run (Renew): the
// probes it made, the copies of mirror answers, the lists of full names
// and the index's buffer (index.pods, put back by Kept).
type Kept struct {
	made    history.Probes
	mirrors slab.Bump[history.MirrorAnswer]
	names   slab.Bump[string]
	pods    []pod
}

// Start puts m's buffers in their first arrays; call before a run.
func (m *Memo) Start() {
	f := &m.first
	m.podsBuf, m.mirrorBuf, m.touched, m.calls = f.answers[:0], f.mirror[:0], f.touched[:0], f.calls[:0]
}

// Kept is the memory m keeps for its lane's next run.
func (m *Memo) Kept() Kept {
	k := m.kept
	k.pods = m.index.pods
	return k
}

// Renew gives a zero m the memory an earlier run's memo kept, to hand out
// again: only once nothing holds a probe of that run.
func (m *Memo) Renew(k Kept) {
	m.kept, m.index.pods = k, k.pods[:0]
	m.kept.made.Reuse()
	m.kept.mirrors.Reset()
	m.kept.names.Reset()
}

// Take is the probe at this release of the pod lock, of the pod workers
// pw (their lock held): it asks again what the critical section can have
// changed (see the package doc) and takes every other answer from the
// previous probe. uids are the pods the plan named so far, sorted (a new
// list when the plan names a pod), and fullName(i) the full name of
// uids[i]; observableOnly: the internal invariants are off (Known stays
// false).
func (m *Memo) Take(pw *workers.PodWorkers, uids []types.UID, fullName func(i int) string, observableOnly bool) *history.Probe {
	if m.index.of != len(uids) {
		m.index.build(uids, fullName, &m.kept.names)
	}
	last, names := m.last, m.index.names
	var p *history.Probe
	if m.all || last == nil || len(last.Pods) != len(uids) || len(last.Mirror) != len(names) || last.PodsSynced != pw.PodsSyncedLocked() ||
		(m.syncKnown && observableOnly) {
		p = m.askAll(pw, uids, observableOnly)
	} else {
		if m.syncKnown && !m.forgetKnown {
			m.syncKnownTouched(pw.KnownUIDsLocked()) // internal on: else askAll
		}
		// The probe is last until an answer differs, then a copy (its Mirror too once a mirror answer differs).
		p = last
		mirror := false
		for _, uid := range m.touched {
			c := m.index.find(uid)
			if c == nil {
				continue // not a pod of the plan: never probed
			}
			if a := answersOf(pw, uid, observableOnly); a != p.Pods[c.at].Answers {
				if p == last {
					p = m.kept.made.Copy(last)
				}
				p.Pods[c.at].Answers = a
			}
			j := c.nameAt // names holds every plan pod's full name
			if t := pw.MirrorTerminatingLocked(c.fullName); t != p.Mirror[j].Terminating {
				if p == last {
					p = m.kept.made.Copy(last)
				}
				if !mirror {
					p.Mirror, mirror = slices.Clone(p.Mirror), true
				}
				p.Mirror[j].Terminating = t
			}
		}
	}
	if m.check {
		if full := m.askAll(pw, uids, observableOnly); !equal(p, full) && m.mismatch == "" {
			m.mismatch = fmt.Sprintf("%s, touched %v, all %v: incremental %+v, full %+v", m.where(), m.touched, m.all, *p, *full)
		}
	}
	m.last = p
	return p
}

// askAll asks every query for every UID and full name.
func (m *Memo) askAll(pw *workers.PodWorkers, uids []types.UID, observableOnly bool) *history.Probe {
	synced := pw.PodsSyncedLocked()
	pods := m.podsBuf[:0]
	for _, uid := range uids {
		pods = append(pods, history.PodAnswers{UID: uid, Answers: answersOf(pw, uid, observableOnly)})
	}
	mirror := m.mirrorBuf[:0]
	for _, f := range m.index.names {
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
		mirror = m.kept.mirrors.Clone(mirror)
	}
	if last != nil && slices.Equal(pods, last.Pods) {
		return m.kept.made.Sharing(synced, last.Pods, mirror)
	}
	return m.kept.made.New(synced, pods, mirror)
}

// answersOf asks every per-UID query of pw about uid, and whether it has
// a record (Known, false while the internal invariants are off).
func answersOf(pw *workers.PodWorkers, uid types.UID, observableOnly bool) history.Answers {
	a, known := pw.AnswersLocked(uid) // the query methods' order (ops.QueryKind's)
	return history.Answers{Known: known && !observableOnly, KnownTerminated: a[0], CouldHaveRunning: a[1], BeFinished: a[2],
		TerminationRequested: a[3], ContainersBeTerminating: a[4], RuntimeBeRemoved: a[5], ContentBeRemoved: a[6]}
}

// equal reports whether two probes hold the same answers.
func equal(a, b *history.Probe) bool {
	return a.PodsSynced == b.PodsSynced && slices.Equal(a.Pods, b.Pods) && slices.Equal(a.Mirror, b.Mirror)
}

// CheckInvariants checks the pod workers' internal invariants at a release
// of the pod lock: only the touched records (workers.CheckInvariantsOfLocked),
// and after a SyncKnownPods the orphans', when the probe would ask only
// about those, for the reason it does (see the package doc); all of them
// otherwise, or when the memo did not follow the critical section's
// events (followed false: they reached no observer). Under Check, each
// verdict is compared with a check of every record.
func (m *Memo) CheckInvariants(pw *workers.PodWorkers, followed bool) error {
	if !followed || m.all || m.last == nil {
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
			m.mismatch = fmt.Sprintf("invariants %s, touched %v: touched %v, every record %v", m.where(), touched, err, full)
		}
	}
	return err
}

// syncKnownTouched adds to the touched UIDs what a SyncKnownPods in the
// critical section can have changed: the records it purged (known at the
// previous release, gone now) and the orphans' (a record whose UID is not
// among the desired ones). records are the records now, sorted.
func (m *Memo) syncKnownTouched(records []types.UID) {
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

// Check makes m compare every probe it takes, and every check of the
// touched records, with one that asks everything (tests); where says where
// the world is ("at 3s (step 5, goroutine g)"), for Mismatch.
func (m *Memo) Check(where func() string) { m.check, m.where = true, where }

// Mismatch returns the first difference Check found ("" if none), and
// forgets it.
func (m *Memo) Mismatch() string {
	s := m.mismatch
	m.mismatch = ""
	return s
}

// ForgetTouched and ForgetKnown make m a wrong probe, for the tests that
// Check catches one: ForgetTouched forgets the UIDs touched so far in the
// critical section, ForgetKnown takes nothing a SyncKnownPods changes as
// touched.
func (m *Memo) ForgetTouched() { m.touched = m.touched[:0] }

// ForgetKnown: see ForgetTouched.
func (m *Memo) ForgetKnown() { m.forgetKnown = true }
