package sim

import (
	"encoding/json"
	"time"
)

// timelineEvent is one Chrome trace-event (the JSON format Perfetto and
// chrome://tracing open).
type timelineEvent struct {
	Name  string        `json:"name"`
	Phase string        `json:"ph"`
	TS    int64         `json:"ts"`
	Dur   int64         `json:"dur,omitempty"`
	PID   int           `json:"pid"`
	TID   int32         `json:"tid"`
	Scope string        `json:"s,omitempty"`
	Args  *timelineArgs `json:"args,omitempty"`
}

type timelineArgs struct {
	Name string `json:"name,omitempty"` // thread names
	At   string `json:"virtual_time,omitempty"`
	Step int    `json:"record,omitempty"`
}

// Timeline renders the run as Chrome trace-event JSON: one track per
// simulated goroutine (track 0 is the scheduler), one slice per trace
// record, and every clock advance as a global instant event. Many
// operations happen at the same virtual instant, so the time axis is the
// record's position in the trace (1 µs per record) and each slice carries
// its virtual time as an argument. Like Trace, it is a function of the run
// alone.
func (s *Scheduler) Timeline() []byte {
	s.mustBeTraced("Timeline")
	events := []timelineEvent{{Name: "thread_name", Phase: "M", PID: 1, TID: 0, Args: &timelineArgs{Name: "scheduler"}}}
	for _, g := range s.all {
		events = append(events, timelineEvent{Name: "thread_name", Phase: "M", PID: 1, TID: g.id + 1,
			Args: &timelineArgs{Name: g.name}})
	}
	var at time.Duration
	s.trace.each(func(i int, r *record) {
		if r.op == opAdvance {
			at = time.Duration(r.arg)
			events = append(events, timelineEvent{Name: "clock → " + at.String(), Phase: "i", TS: int64(i),
				PID: 1, TID: 0, Scope: "g"})
			return
		}
		name := r.op.String()
		if r.obj >= 0 {
			name += " " + s.objects[r.obj].name
		}
		if d := s.detail(r); d != "" {
			name += " " + d
		}
		events = append(events, timelineEvent{Name: name, Phase: "X", TS: int64(i), Dur: 1, PID: 1,
			TID: int32(r.g) + 1, Args: &timelineArgs{At: at.String(), Step: i}})
	})
	data, err := json.Marshal(map[string]any{"traceEvents": events, "displayTimeUnit": "ns"})
	if err != nil {
		panic("sim: Timeline: " + err.Error())
	}
	return data
}
