package safety

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/oracle"
)

// This file checks the state every release of the pod lock leaves: the
// query answers (S4, S6, S7, S8, S9, S10, S19) and the kills' completion
// Events (S14).

// safetyAnswerField is one query of SPEC §1.14 as oracle.Answers holds it;
// falls is true for the one answer that only goes true→false (S8).
type safetyAnswerField struct {
	name  string
	get   func(oracle.Answers) bool
	falls bool
}

var safetyAnswerFields = []safetyAnswerField{
	{"IsPodKnownTerminated", func(a oracle.Answers) bool { return a.KnownTerminated }, false},
	{"CouldHaveRunningContainers", func(a oracle.Answers) bool { return a.CouldHaveRunning }, true},
	{"ShouldPodBeFinished", func(a oracle.Answers) bool { return a.BeFinished }, false},
	{"IsPodTerminationRequested", func(a oracle.Answers) bool { return a.TerminationRequested }, false},
	{"ShouldPodContainersBeTerminating", func(a oracle.Answers) bool { return a.ContainersBeTerminating }, false},
	{"ShouldPodRuntimeBeRemoved", func(a oracle.Answers) bool { return a.RuntimeBeRemoved }, false},
	{"ShouldPodContentBeRemoved", func(a oracle.Answers) bool { return a.ContentBeRemoved }, false},
}

// safetyDiff lists the answers that differ, "Query old→new, …".
func safetyDiff(old, now oracle.Answers) string {
	var out []string
	for _, f := range safetyAnswerFields {
		if f.get(old) != f.get(now) {
			out = append(out, fmt.Sprintf("%s %v→%v", f.name, f.get(old), f.get(now)))
		}
	}
	return strings.Join(out, ", ")
}

// safetyUnknown is S10: "Before the first SyncKnownPods: unknown ⇒
// CouldHaveRunning=T, others F. After: unknown ⇒ CouldHaveRunning=F,
// TermRequested=F, KnownTerminated=F, the four Should* = T."
func safetyUnknown(synced bool) oracle.Answers {
	return oracle.Answers{CouldHaveRunning: !synced, BeFinished: synced, ContainersBeTerminating: synced,
		RuntimeBeRemoved: synced, ContentBeRemoved: synced}
}

// checkState runs the state invariants over the judged UIDs (sorted) after
// a critical section.
func (o *safetyOracle) checkState(v safetyView, cs *safetyCS, judged []*safetyPod) {
	ev := cs.ev
	synced := v.Synced()
	if o.viewSynced && !synced {
		o.report("S8", "podsSynced", ev, "pod workers", "podsSynced went back to false at %v", ev.At)
	}
	o.viewSynced = synced
	switch {
	case synced && !o.synced:
		o.report("S10", "podsSynced", ev, "pod workers", "podsSynced=true at %v before any SyncKnownPods", ev.At)
	case !synced && o.synced:
		o.report("S10", "podsSynced", ev, "pod workers",
			"podsSynced=false at %v after SyncKnownPods at %v", ev.At, o.syncedAt)
	}
	for _, t := range judged {
		uid := t.uid
		a := cs.of(t)
		if t.cur == nil {
			o.checkUnknown(uid, a, ev)
			continue
		}
		if t.cur.hasAns {
			o.checkMonotonic(t.cur, a, ev)
		}
		o.noteMilestones(t, t.cur, a, ev)
		o.checkLattice(t.cur, a, ev)
	}
	o.checkMirror(v, cs)
	o.checkOpenCompletions(cs)
}

// checkUnknown is S10 for a UID without a record.
func (o *safetyOracle) checkUnknown(uid string, a oracle.Answers, ev *history.Event) {
	if want := safetyUnknown(o.synced); a != want {
		o.report("S10", fmt.Sprintf("%s/%v", uid, o.synced), ev, o.unknownSubject(uid),
			"an unknown UID answers differently at %v: %s", ev.At, safetyDiff(want, a))
	}
}

// checkMonotonic is S8: "Within an incarnation: TerminationRequested,
// ContainersBeTerminating, KnownTerminated, BeFinished, ContentBeRemoved
// only go false→true; CouldHaveRunning only true→false." RuntimeBeRemoved,
// equal to KnownTerminated by S9, is held to the same rule.
func (o *safetyOracle) checkMonotonic(inc *safetyInc, a oracle.Answers, ev *history.Event) {
	if a == inc.ans || !wentBack(inc.ans, a) {
		return // nothing went back: the loop below reports nothing
	}
	for _, f := range safetyAnswerFields {
		was, is := f.get(inc.ans), f.get(a)
		if was == is || is != f.falls {
			continue
		}
		o.report("S8", inc.key()+"/"+f.name, ev, o.subject(inc),
			"%s went back from %v to %v at %v", f.name, was, is, ev.At)
	}
}

// wentBack reports whether an answer of safetyAnswerFields went back from
// was to is (a field that only goes false→true went false, or
// CouldHaveRunning, which only goes true→false, went true): checkMonotonic's
// loop in one expression, for the common case where none did.
func wentBack(was, is oracle.Answers) bool {
	return was.KnownTerminated && !is.KnownTerminated || !was.CouldHaveRunning && is.CouldHaveRunning ||
		was.BeFinished && !is.BeFinished || was.TerminationRequested && !is.TerminationRequested ||
		was.ContainersBeTerminating && !is.ContainersBeTerminating || was.RuntimeBeRemoved && !is.RuntimeBeRemoved ||
		was.ContentBeRemoved && !is.ContentBeRemoved
}

// noteMilestones records when each answer first turned, and checks the
// in-flight half of S4 ("ShouldPodContainersBeTerminating(uid)==true ⇒ no
// SyncPod in flight"), S7 ("CouldHaveRunningContainers==false (or
// ShouldPodRuntimeBeRemoved==true) ⇒ no SyncPod/SyncTerminatingPod in
// flight") and S6 ("No sync call after a successful SyncTerminatedPod …
// updates other than create are ignored; create only sets restart": the
// answers of a finished record never change).
func (o *safetyOracle) noteMilestones(t *safetyPod, inc *safetyInc, a oracle.Answers, ev *history.Event) {
	c := t.inFlight
	if c != nil && c.inc != inc {
		c = nil
	}
	if a.TerminationRequested && inc.trSeq == 0 {
		inc.trSeq = ev.Seq
		if inc.req == nil {
			o.request(t, inc, o.newRequest(safetyRequest{seq: ev.Seq, at: ev.At, what: whatText("IsPodTerminationRequested turning true"), cancel: true}), ev)
		}
	}
	if a.KnownTerminated && inc.termSeq == 0 {
		inc.termSeq = ev.Seq
	}
	if a.ContainersBeTerminating {
		if inc.ackSeq == 0 {
			inc.ackSeq, inc.ackAt = ev.Seq, ev.At
		}
		if c != nil && c.fn == ops.SyncPod {
			o.report("S4", inc.key()+"/in-flight", ev, o.subject(inc),
				"ShouldPodContainersBeTerminating is true at %v while SyncPod (began %v) is running", ev.At, c.at)
		}
	}
	if !a.CouldHaveRunning || a.RuntimeBeRemoved {
		if inc.noRunSeq == 0 {
			inc.noRunSeq, inc.noRunAt = ev.Seq, ev.At
		}
		if c != nil && (c.fn == ops.SyncPod || c.fn == ops.SyncTerminatingPod) {
			o.report("S7", inc.key()+"/in-flight", ev, o.subject(inc),
				"CouldHaveRunningContainers is false at %v while %s (began %v) is running", ev.At, c.fn, c.at)
		}
	}
	switch {
	case !a.BeFinished && inc.finSeq == 0:
	case inc.finSeq == 0:
		inc.finSeq, inc.finAt, inc.frozen = ev.Seq, ev.At, a
	case a != inc.frozen:
		o.report("S6", inc.key()+"/answers", ev, o.subject(inc),
			"the pod finished at %v, then its answers changed at %v: %s", inc.finAt, ev.At, safetyDiff(inc.frozen, a))
	}
}

// safetyRule is one implication of S9 or S19: its message's format reads
// the answers and the deleted flag as checkLattice passes them.
type safetyRule struct{ inv, key, msg string }

// latticeHolds is every rule of latticeRules holding.
var latticeHolds = func() (h [len(latticeRules)]bool) {
	for i := range h {
		h[i] = true
	}
	return h
}()

// latticeRules are checkLattice's implications, in the order checked.
var latticeRules = [...]safetyRule{
	{"S9", "kt-rbr", "IsPodKnownTerminated=%[1]v but ShouldPodRuntimeBeRemoved=%[2]v"},
	{"S9", "kt-chr", "IsPodKnownTerminated=%[1]v but CouldHaveRunningContainers=%[3]v"},
	{"S9", "fin-kt", "ShouldPodBeFinished=%[4]v but IsPodKnownTerminated=%[1]v"},
	{"S9", "kt-tr", "IsPodKnownTerminated=%[1]v but IsPodTerminationRequested=%[5]v"},
	{"S9", "cbt-tr", "ShouldPodContainersBeTerminating=%[6]v but IsPodTerminationRequested=%[5]v"},
	{"S9", "kt-cbt", "IsPodKnownTerminated=%[1]v but ShouldPodContainersBeTerminating=%[6]v"},
	{"S9", "content", "ShouldPodContentBeRemoved=%[7]v but ShouldPodRuntimeBeRemoved=%[2]v and the pod was not evicted"},
	{"S19", "content", "ShouldPodContentBeRemoved=%[7]v but the pod was neither evicted nor deleted and terminated (deleted=%[8]v, IsPodKnownTerminated=%[1]v)"},
}

// checkLattice is S9 (known UIDs): "KnownTerminated ⇔ RuntimeBeRemoved ⇔
// ¬CouldHaveRunning; BeFinished ⇒ KnownTerminated; KnownTerminated ⇒
// TermRequested; ContainersBeTerminating ⇒ TermRequested; KnownTerminated ⇒
// ContainersBeTerminating; ContentBeRemoved ∧ ¬evicted ⇒ RuntimeBeRemoved"
// and S19: "ShouldPodContentBeRemoved(uid) true for a known pod ⇒ evicted or
// (deleted and terminated)". holds[i] is whether latticeRules[i] holds.
func (o *safetyOracle) checkLattice(inc *safetyInc, a oracle.Answers, ev *history.Event) {
	if latticeOK(inc, a) {
		return // the common case
	}
	for i, ok := range latticeHoldsOf(inc, a) {
		if ok {
			continue
		}
		r := latticeRules[i]
		msg := fmt.Sprintf(r.msg, a.KnownTerminated, a.RuntimeBeRemoved, a.CouldHaveRunning, a.BeFinished,
			a.TerminationRequested, a.ContainersBeTerminating, a.ContentBeRemoved, inc.deleted)
		o.report(r.inv, inc.key()+"/"+r.key, ev, o.subject(inc), "%s at %v", msg, ev.At)
	}
}

// latticeOK is every rule of latticeRules holding (latticeHoldsOf equal
// to latticeHolds), in one expression: checkLattice's common case without
// building the array and comparing it.
func latticeOK(inc *safetyInc, a oracle.Answers) bool {
	return a.KnownTerminated == a.RuntimeBeRemoved && a.KnownTerminated != a.CouldHaveRunning &&
		(!a.BeFinished || a.KnownTerminated) && (!a.KnownTerminated || a.TerminationRequested) &&
		(!a.ContainersBeTerminating || a.TerminationRequested) && (!a.KnownTerminated || a.ContainersBeTerminating) &&
		(!a.ContentBeRemoved || inc.evicted || (a.RuntimeBeRemoved && inc.deleted && a.KnownTerminated))
}

// latticeHoldsOf is whether each rule of latticeRules holds for inc's
// answers a.
func latticeHoldsOf(inc *safetyInc, a oracle.Answers) [len(latticeRules)]bool {
	return [len(latticeRules)]bool{
		a.KnownTerminated == a.RuntimeBeRemoved,
		a.KnownTerminated != a.CouldHaveRunning,
		!a.BeFinished || a.KnownTerminated,
		!a.KnownTerminated || a.TerminationRequested,
		!a.ContainersBeTerminating || a.TerminationRequested,
		!a.KnownTerminated || a.ContainersBeTerminating,
		!a.ContentBeRemoved || inc.evicted || a.RuntimeBeRemoved,
		!a.ContentBeRemoved || inc.evicted || (inc.deleted && a.KnownTerminated),
	}
}

// checkMirror is the last clause of S9: "MirrorTerminating(fullname) ⇒ the
// started UID is in TR/T", with SPEC §1.14's converse ("true exactly in
// TR/T for the UID currently recorded as the started static pod") for a
// static pod known to have started (it began a callback and has not
// finished). When none is known to have started, one whose worker took an
// update may have: MirrorTerminating then needs one of those in TR/T.
func (o *safetyOracle) checkMirror(v safetyView, cs *safetyCS) {
	terminating := func(inc *safetyInc) bool {
		a := cs.answers(inc.uid)
		return a.TerminationRequested && !a.KnownTerminated
	}
	// The static records not finished, in UID order: what the loop over
	// the full names below reads of the records (most runs have none).
	statics := o.staticBuf[:0]
	if o.statics > 0 || o.fullPass { // else no record was ever static (most runs)
		for _, t := range o.tracks {
			if inc := t.cur; inc != nil && inc.static && !cs.of(t).BeFinished {
				statics = append(statics, inc)
			}
		}
	}
	o.staticBuf = statics
	if len(statics) == 0 && !mayTerminate(v) {
		return // no full name can be reported: none started, none answers true
	}
	mirror := newMirrorReader(v)
	for _, f := range o.sortedFullnames {
		m := mirror.terminating(f)
		var started, maybe []*safetyInc
		for _, inc := range statics {
			if inc.fullname != f {
				continue
			}
			if inc.starts > 0 {
				started = append(started, inc)
			} else if inc.workerSeen && terminating(inc) {
				maybe = append(maybe, inc)
			}
		}
		switch {
		case len(started) == 1 && m != terminating(started[0]):
			s := started[0]
			o.report("S9", s.key()+"/mirror/"+fmt.Sprint(m), cs.ev, o.subject(s),
				"IsPodForMirrorPodTerminatingByFullName(%s)=%v at %v, but this started static pod is in %s",
				f, m, cs.ev.At, safetyStateOf(cs.answers(s.uid)))
		case len(started) == 0 && m && len(maybe) == 0:
			o.report("S9", "mirror/"+f, cs.ev, "full name "+f,
				"IsPodForMirrorPodTerminatingByFullName=true at %v, but no started static pod of that name is terminating", cs.ev.At)
		}
	}
}

// safetyStateOf is the SPEC §1.2 state answers show (P and S look alike).
func safetyStateOf(a oracle.Answers) string {
	inc := safetyInc{latest: a, starts: 1}
	return inc.state()
}

// safetyCompletion is a kill's completion Event (CompletedCh).
type safetyCompletion struct {
	id         int
	uid        string
	pod        *safetyPod // uid's record
	seq        int64
	at         time.Duration
	what       safetyWhat
	requesting bool // its update requested termination
	fired      bool
}

// byCompletionID orders completions by ID, for a search of open.
func byCompletionID(c *safetyCompletion, id int) int { return cmp.Compare(c.id, id) }

// safetyFired is a CompletionFired seen inside a critical section.
type safetyFired struct {
	id  int
	uid string
	seq int64
	at  time.Duration
}

// checkCompletionFired is S14: "Closed after the pod becomes terminated
// (never before), or immediately if the pod was already terminated or was
// not terminating; each channel closed once." Judged by the answers at the
// end of the critical section that fired it: CouldHaveRunning=false, or
// (for a kill option on an update that requested nothing) not terminating.
func (o *safetyOracle) checkCompletionFired(fc safetyFired, ev *history.Event, cs *safetyCS) {
	c := o.completions[fc.id]
	switch {
	case c == nil:
		o.report("S14", fmt.Sprintf("fired/%d", fc.id), ev, "pod "+fc.uid,
			"completion #%d fired at %v, but no kill delivered it", fc.id, fc.at)
		return
	case c.fired:
		o.report("S14", fmt.Sprintf("twice/%d", fc.id), ev, "pod "+c.uid,
			"the completion of %s at %v fired twice (again at %v)", c.what, c.at, fc.at)
		return
	}
	c.fired = true
	if i, found := slices.BinarySearchFunc(o.open, c.id, byCompletionID); found {
		o.open = slices.Delete(o.open, i, i+1)
	}
	a := o.answersOf(c.uid, cs)
	// A record gone by the end of the critical section that fired the
	// completion was removed in it, and the workers remove a record only
	// once its pod is terminated (a runtime-only record after its
	// SyncTerminatingRuntimePod, an unstarted one at its cleanup): an
	// unknown UID's CouldHaveRunning is !podsSynced, which says nothing
	// about this kill (swarm seed 4175, testdata/regress).
	if a.Known && a.CouldHaveRunning && (c.requesting || a.TerminationRequested) {
		o.report("S14", fmt.Sprintf("early/%d", fc.id), ev, o.subjectOf(c.uid, cs),
			"the completion of %s at %v fired at %v before the pod was terminated", c.what, c.at, fc.at)
	}
}

// checkOpenCompletions is S14's strict mode: a completion is "never open
// when CouldHaveRunning=false".
func (o *safetyOracle) checkOpenCompletions(cs *safetyCS) {
	for _, c := range o.open {
		if cs.of(c.pod).CouldHaveRunning {
			continue
		}
		o.report("S14", fmt.Sprintf("open/%d", c.id), cs.ev, o.subjectOf(c.uid, cs),
			"the completion of %s at %v is still open at %v, when CouldHaveRunningContainers is false",
			c.what, c.at, cs.ev.At)
	}
}

// answersOf returns uid's answers at the end of cs (or, outside a critical
// section, as last seen).
func (o *safetyOracle) answersOf(uid string, cs *safetyCS) oracle.Answers {
	t := o.track(uid)
	switch {
	case cs != nil:
		return cs.answers(uid)
	case t.cur != nil && t.cur.hasAns:
		return t.cur.ans
	}
	return safetyUnknown(o.synced)
}

// subjectOf names uid for a message about its answersOf: its record, or
// the UID when it has none (or none with answers, outside a critical
// section). It is built only for a report: most completions fire on time,
// and a name is a formatted string.
func (o *safetyOracle) subjectOf(uid string, cs *safetyCS) string {
	if t := o.track(uid); t.cur != nil && (cs != nil || t.cur.hasAns) {
		return o.subject(t.cur)
	}
	return o.unknownSubject(uid)
}
