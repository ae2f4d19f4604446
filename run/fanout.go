package run

import (
	"slices"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/oracle"
)

// observer is what judgeOn hands an event to: an oracle, a tracker, the
// marker (markObserver).
type observer interface {
	Observe(v oracle.View, ev *history.Event)
}

// markObserver hands events to a run's marker.
type markObserver struct{ m *history.Marker }

func (o markObserver) Observe(_ oracle.View, ev *history.Event) { o.m.Observe(ev) }

// markKinds are the kinds the marker reads (history.MarkerKinds).
var markKinds = oracle.KindsOf(history.MarkerKinds[:]...)

// listed is an observer and the kinds of event it reads.
type listed struct {
	o     observer
	kinds oracle.Kinds
}

// everyKind is every kind of event.
const everyKind = ^oracle.Kinds(0)

// epochKinds are the kinds the per-epoch oracles read: every kind but Noted
// (the kubelet-level checks' alone) and Restarted (which ends their epoch:
// epochOracles.restart).
var epochKinds = everyKind &^ oracle.KindsOf(history.Noted, history.Restarted)

// fanout lists, for each kind of event, the observers of a run that read
// it, in the order judgeOn hands an event out: an event goes only to those,
// found by one index, instead of to every observer with a test in each. A
// lane keeps its fanout from seed to seed and builds its lists again only
// when the observers differ from the last seed's (set): a lane reuses its
// oracles, so most seeds find the lists of the seed before.
type fanout struct {
	of   [history.NumEventKinds][]observer
	from []listed // the observers of lists
	buf  []listed // where judgeOn lists them
	// was are the observers setFrom listed last, the elements of their
	// extra and epoch oracles copied (wasExtra, wasEpoch): a seed whose
	// observers are the same finds its lists without listing them (each
	// oracle's kinds are an interface assertion).
	was                observers
	wasExtra, wasEpoch []oracle.Oracle
	// obs are the run's observers and hand its handout (judgeOn), and
	// deliver the function the world calls (hand's observer): a lane's
	// run sets obs and hand anew and makes deliver once.
	obs     observers
	hand    handout
	deliver func(*history.Event)
}

// handOut makes h the run's handout and returns the function the world
// calls with each event (handout.observer).
func (f *fanout) handOut(h handout) func(*history.Event) {
	f.hand = h
	if f.deliver == nil {
		f.deliver = f.hand.observer()
	}
	return f.deliver
}

// fanout is the run's fanout: the lane's (a fresh one for a nil lane).
func (l *Lane) fanout() *fanout {
	if l == nil {
		return new(fanout)
	}
	return &l.fan
}

// set makes f's lists those of os, in their order. The lists are built in
// a new array: one being handed out from is never written.
func (f *fanout) set(os []listed) {
	if slices.Equal(os, f.from) {
		return
	}
	f.from = append(f.from[:0], os...)
	all := make([]observer, 0, len(os)*len(f.of)) // every kind's list, one array
	for k := range f.of {
		from := len(all)
		for _, l := range os {
			if l.kinds.Has(history.EventKind(k)) {
				all = append(all, l.o)
			}
		}
		f.of[k] = all[from:len(all):len(all)]
	}
}

// setFrom makes f's lists those of o's observers (listed in f.buf).
func (f *fanout) setFrom(o *observers) {
	if f.same(o) {
		return
	}
	f.buf = o.list(f.buf[:0])
	f.set(f.buf)
	f.was = *o
	f.wasExtra = append(f.wasExtra[:0], o.extra...)
	f.wasEpoch = append(f.wasEpoch[:0], o.epochs.cur...)
}

// same reports whether o are the observers setFrom listed last: each the
// same, the epoch's compared one by one (a lane's epoch set is one array,
// its oracles replaced in place when they cannot be reused).
func (f *fanout) same(o *observers) bool {
	w := &f.was
	return w.epochs != nil && w.cov == o.cov && w.near == o.near && w.timing == o.timing && w.marks == o.marks &&
		w.kube == o.kube && slices.Equal(f.wasExtra, o.extra) && slices.Equal(f.wasEpoch, o.epochs.cur)
}

// kindsOf is the kinds o reads: those its Kinds says (oracle.KindFilter),
// else every kind.
func kindsOf(o oracle.Oracle) oracle.Kinds {
	if f, ok := o.(oracle.KindFilter); ok {
		return f.Kinds()
	}
	return everyKind
}

// observers are a run's observers, in the order judgeOn hands an event
// out: the coverage and near-miss trackers (nil: none), the timing checks,
// the extra oracles, the current epoch's oracles, the marker and the
// kubelet-level checks (nil: none).
type observers struct {
	cov, near observer
	timing    [5]oracle.Oracle
	extra     []oracle.Oracle
	epochs    *epochOracles
	marks     *history.Marker
	kube      oracle.Oracle
}

// list appends each observer with the kinds it reads to buf.
func (o *observers) list(buf []listed) []listed {
	if o.cov != nil {
		buf = append(buf, listed{o.cov, everyKind})
	}
	if o.near != nil {
		buf = append(buf, listed{o.near, everyKind})
	}
	for _, t := range o.timing {
		buf = append(buf, listed{t, kindsOf(t)})
	}
	for _, x := range o.extra {
		buf = append(buf, listed{x, everyKind})
	}
	for _, e := range o.epochs.cur {
		buf = append(buf, listed{e, epochKinds & kindsOf(e)})
	}
	buf = append(buf, listed{markObserver{o.marks}, markKinds})
	if o.kube != nil {
		buf = append(buf, listed{o.kube, everyKind})
	}
	return buf
}
