package history

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/types"
)

// Answers is every query's answer for one UID (SPEC §1.14), as the public
// query methods returned it, and Known: whether the UID has a record.
// Known is the target's bookkeeping (the kubelet's pod workers have no
// query that says it): a target that keeps no such record derives it
// from the answers (a UID is known unless it answers as an unknown one).
type Answers struct {
	Known                   bool
	KnownTerminated         bool
	CouldHaveRunning        bool
	BeFinished              bool
	TerminationRequested    bool
	ContainersBeTerminating bool
	RuntimeBeRemoved        bool
	ContentBeRemoved        bool
}

// UnknownAnswers is what every query says of a UID without a record (SPEC
// §1.14): before the first SyncKnownPods, CouldHaveRunningContainers only;
// after it, CouldHaveRunningContainers false and every Should* query true.
func UnknownAnswers(synced bool) Answers {
	return Answers{CouldHaveRunning: !synced, BeFinished: synced, ContainersBeTerminating: synced,
		RuntimeBeRemoved: synced, ContentBeRemoved: synced}
}

// PodAnswers are the answers for one UID.
type PodAnswers struct {
	UID types.UID
	Answers
}

// MirrorAnswer is IsPodForMirrorPodTerminatingByFullName's answer for one
// full name.
type MirrorAnswer struct {
	FullName    string
	Terminating bool
}

// Probe is what the target's public query methods returned when the target
// called every one of them at the end of a critical section of the pod lock,
// in the goroutine that held it, with nothing run in between (it rides on
// that LockReleasing event): every per-UID query for every UID the plan
// names, PodsSynced, and IsPodForMirrorPodTerminatingByFullName for every
// full name the plan names. Pods and Mirror are sorted by key.
type Probe struct {
	PodsSynced bool
	Pods       []PodAnswers
	Mirror     []MirrorAnswer
}

// Copy returns a probe with p's answers, for a caller to change some of
// them (a probe is read only once handed out). Its Pods are a copy; when
// they are few (probeRoom) the copy shares the probe's allocation. Mirror
// is shared: the caller copies it before changing it.
func (p *Probe) Copy() *Probe { return (*Probes)(nil).Copy(p) }

// probeRoom is how many pods' answers a copied probe holds in its own
// allocation.
const probeRoom = 4

// roomyProbe is a probe with room for probeRoom pods' answers.
type roomyProbe struct {
	Probe
	pods [probeRoom]PodAnswers
}

// Probes makes the probes of one run (a target's), a slab of them at a
// time (Slab): a few allocations a run, not one a probe. Each probe it
// makes is a new one, never handed out again in the run; a slab lives as
// long as Probes does. The zero value is ready; a nil *Probes makes each
// probe in an allocation of its own.
type Probes struct {
	slab Slab[roomyProbe]
}

// Reuse readies ps for another run (a lane's next seed, run.Lane): its
// slabs are handed out again (Slab.Reset). Only for a caller that knows
// nothing holds a probe of an earlier run: Reset clears them.
func (ps *Probes) Reuse() { ps.slab.Reset() }

// take returns a zero roomyProbe.
func (ps *Probes) take() *roomyProbe {
	if ps == nil {
		return &roomyProbe{}
	}
	return ps.slab.Next()
}

// Copy is p.Copy(), made by ps.
func (ps *Probes) Copy(p *Probe) *Probe { return ps.New(p.PodsSynced, p.Pods, p.Mirror) }

// Sharing returns a probe of synced sharing pods and mirror (a probe is
// read only).
func (ps *Probes) Sharing(synced bool, pods []PodAnswers, mirror []MirrorAnswer) *Probe {
	c := ps.take()
	c.PodsSynced, c.Pods, c.Mirror = synced, pods, mirror
	return &c.Probe
}

// New returns a probe of synced with a copy of pods' answers (in the
// probe's allocation when they are few) and mirror, which it shares.
func (ps *Probes) New(synced bool, pods []PodAnswers, mirror []MirrorAnswer) *Probe {
	if len(pods) > probeRoom {
		return &Probe{PodsSynced: synced, Pods: slices.Clone(pods), Mirror: mirror}
	}
	c := ps.take()
	c.PodsSynced, c.Mirror = synced, mirror
	c.Pods = append(c.pods[:0], pods...)
	return &c.Probe
}

// Answers returns uid's answers. A UID the target did not probe is one its
// plan never named: no call can have made a record for it, so it answers
// as an unknown UID does.
func (p *Probe) Answers(uid types.UID) Answers {
	i, ok := slices.BinarySearchFunc(p.Pods, uid, func(a PodAnswers, u types.UID) int { return strings.Compare(string(a.UID), string(u)) })
	if !ok {
		return UnknownAnswers(p.PodsSynced)
	}
	return p.Pods[i].Answers
}

// KnownUIDs lists the UIDs with a record, sorted.
func (p *Probe) KnownUIDs() []string { return p.AppendKnownUIDs(nil) }

// AppendKnownUIDs appends KnownUIDs to dst (a caller's buffer, reused from
// release to release) and returns it.
func (p *Probe) AppendKnownUIDs(dst []string) []string {
	for _, a := range p.Pods {
		if a.Known {
			dst = append(dst, string(a.UID))
		}
	}
	return dst
}

// Synced is PodsSynced's answer.
func (p *Probe) Synced() bool { return p.PodsSynced }

// MirrorTerminating is IsPodForMirrorPodTerminatingByFullName's answer for
// fullname (false for a full name the plan never named: no static pod
// holds it).
func (p *Probe) MirrorTerminating(fullname string) bool {
	i, ok := slices.BinarySearchFunc(p.Mirror, fullname, func(m MirrorAnswer, f string) int { return strings.Compare(m.FullName, f) })
	return ok && p.Mirror[i].Terminating
}

// NewProbe builds a Probe from answers per UID and mirror answers per full
// name (either may be nil), sorting them.
func NewProbe(synced bool, answers map[types.UID]Answers, mirror map[string]bool) *Probe {
	p := &Probe{PodsSynced: synced}
	for uid, a := range answers {
		p.Pods = append(p.Pods, PodAnswers{UID: uid, Answers: a})
	}
	slices.SortFunc(p.Pods, func(a, b PodAnswers) int { return strings.Compare(string(a.UID), string(b.UID)) })
	for f, m := range mirror {
		p.Mirror = append(p.Mirror, MirrorAnswer{FullName: f, Terminating: m})
	}
	slices.SortFunc(p.Mirror, func(a, b MirrorAnswer) int { return strings.Compare(a.FullName, b.FullName) })
	return p
}

// ProbeWalk reads a Probe's answers for UIDs asked in ascending order, as
// Answers returns them, walking Pods once instead of searching it for
// each UID.
type ProbeWalk struct {
	Probe *Probe
	next  int // Pods before it hold smaller UIDs than any asked from now on
}

// Answers is Probe.Answers(uid); uid must not be smaller than the UID of
// the previous call.
func (w *ProbeWalk) Answers(uid types.UID) Answers {
	pods := w.Probe.Pods
	for ; w.next < len(pods); w.next++ { // one comparison a step
		if c := strings.Compare(string(pods[w.next].UID), string(uid)); c >= 0 {
			if c == 0 {
				return pods[w.next].Answers
			}
			break
		}
	}
	return UnknownAnswers(w.Probe.PodsSynced)
}
