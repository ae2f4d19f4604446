package actors

import (
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/kubelet/eviction"

	"github.com/podsim/podsim/realkubelet/killgate"
	"github.com/podsim/podsim/realkubelet/sdjudge"
)

// sdRecord is one shutdown's processing as the driver saw it, for
// sdjudge: the groups and snapshot the manager was given, the kills it
// sent (in the order noted; their instants are the gate's), and when the
// processing ended (the release of its lock), if it did.
type sdRecord struct {
	groups   []sdjudge.Group
	snapshot []sdjudge.Pod
	kills    []*killgate.Request
	ended    bool
	end      time.Duration
}

// recordShutdown begins the record of the processing the manager is
// about to be sent (announce).
func (a *Actors) recordShutdown() {
	r := &sdRecord{}
	for _, g := range a.groups {
		r.groups = append(r.groups, sdjudge.Group{Priority: g.Priority, Grace: g.Grace})
	}
	for _, p := range a.snapshot {
		var prio int32
		if p.Spec.Priority != nil {
			prio = *p.Spec.Priority
		}
		r.snapshot = append(r.snapshot, sdjudge.Pod{UID: p.UID, Priority: prio, SpecGrace: p.Spec.TerminationGracePeriodSeconds})
	}
	a.sdRecords = append(a.sdRecords, r)
}

// recordKill adds a kill the manager sent to the processing under way.
func (a *Actors) recordKill(r *killgate.Request) {
	if n := len(a.sdRecords); n > 0 && !a.sdRecords[n-1].ended {
		a.sdRecords[n-1].kills = append(a.sdRecords[n-1].kills, r)
	}
}

// recordDone ends the record of the processing under way at the instant
// the manager released its lock.
func (a *Actors) recordDone() {
	n := len(a.sdRecords)
	if n == 0 {
		return
	}
	if at, ok := a.Shutdown.DoneAt(); ok {
		a.sdRecords[n-1].ended, a.sdRecords[n-1].end = true, at.Sub(a.host.Tape().Start)
	}
}

// KillProblems are what sdjudge finds wrong with the kills of each
// shutdown this process's manager processed (P7): the pods, their groups,
// graces and evict flags, and when each group began and was over. A
// processing that did not end is judged as far as it went.
func (a *Actors) KillProblems() []string {
	var out []string
	start := a.host.Tape().Start
	for _, r := range a.sdRecords {
		s := sdjudge.Shutdown{Groups: r.groups, Snapshot: r.snapshot, Ended: r.ended, End: r.end}
		for _, k := range r.kills {
			kill := sdjudge.Kill{UID: k.UID, At: k.SentAt.Sub(start), Grace: k.Sent.Grace, Evict: k.Sent.Evict}
			if back, _ := k.Returned(); back {
				kill.Returned, kill.Back = true, k.BackAt.Sub(start)
			}
			s.Kills = append(s.Kills, kill)
		}
		out = append(out, sdjudge.Judge(s)...)
	}
	return out
}

// stretchGrace is kill with a grace one second longer than asked
// (planted.GraceStretched).
func stretchGrace(kill eviction.KillPodFunc) eviction.KillPodFunc {
	return func(pod *v1.Pod, evict bool, grace *int64, fn func(*v1.PodStatus)) error {
		if grace != nil {
			longer := *grace + 1
			grace = &longer
		}
		return kill(pod, evict, grace, fn)
	}
}

// linger is kill returning to its caller a second after it returned
// (planted.KillLingers).
func linger(kill eviction.KillPodFunc) eviction.KillPodFunc {
	return func(pod *v1.Pod, evict bool, grace *int64, fn func(*v1.PodStatus)) error {
		err := kill(pod, evict, grace, fn)
		time.Sleep(time.Second)
		return err
	}
}
