package model

import (
	"fmt"
	"slices"
	"strings"
)

func describeDue(o Obligation) string {
	if o.ID == 0 {
		return "cancel/" + o.UID
	}
	return fmt.Sprintf("completion#%d of %s", o.ID, o.UID)
}

// DescribeRecord renders one record, e.g. "a S grace=- pending=update@v3".
func DescribeRecord(r Record, notify []int) string {
	var b strings.Builder
	b.WriteString(r.UID + " " + r.StateName())
	for _, f := range []struct {
		on   bool
		name string
	}{{r.Static, "static"}, {r.Deleted, "deleted"}, {r.Evicted, "evicted"},
		{r.RestartRequested, "restart"}, {r.ObservedRuntime, "runtime"}} {
		if f.on {
			b.WriteString(" " + f.name)
		}
	}
	grace := "-"
	if r.Grace != 0 {
		grace = fmt.Sprint(r.Grace)
	}
	b.WriteString(" grace=" + grace + " pending=" + describeDelivery(r.HasPending, r.Pending))
	if r.Flight.Stage != Idle {
		fmt.Fprintf(&b, " flight=%s(%s)", r.Flight.Fn, r.Flight.Stage)
		if r.Flight.Stage == Returned {
			b.WriteString(":" + r.Flight.Outcome.String())
		}
	}
	if len(notify) > 0 {
		fmt.Fprintf(&b, " notify=%v", notify)
	}
	return b.String()
}

func describeDelivery(has bool, d Delivery) string {
	switch {
	case !has:
		return "-"
	case d.RuntimeOnly:
		return d.Type.String() + "@runtime"
	}
	return fmt.Sprintf("%s@v%d", d.Type, d.Pod.Version)
}

// DescribeState renders a state as one line: records, static maps,
// obligations; "unsynced"/"synced" says whether podsSynced is set.
func DescribeState(s State) string {
	parts := []string{map[bool]string{false: "unsynced", true: "synced"}[s.PodsSynced]}
	for _, r := range s.recs {
		parts = append(parts, DescribeRecord(r, s.notifyIDs(r.UID)))
	}
	var names []string
	for _, e := range s.StartedStatic {
		names = append(names, e.FullName)
	}
	for _, e := range s.WaitingStatic {
		if _, ok := s.startedStatic(e.FullName); !ok {
			names = append(names, e.FullName)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		started, ok := s.startedStatic(name)
		if !ok {
			started = "-"
		}
		parts = append(parts, fmt.Sprintf("static %s started=%s waiting=%v", name, started, s.waitingStatic(name)))
	}
	for _, o := range s.Due {
		parts = append(parts, "due "+describeDue(o))
	}
	if len(s.MayCancel) > 0 {
		parts = append(parts, fmt.Sprintf("may-cancel %v", s.MayCancel))
	}
	return strings.Join(parts, "; ")
}
