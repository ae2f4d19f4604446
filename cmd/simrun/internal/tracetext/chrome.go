package tracetext

import (
	"encoding/json"
	"strings"
	"time"
)

// Chrome renders a canonical trace as Chrome trace-event JSON
// (Perfetto, chrome://tracing) on virtual time: ts is the record's virtual
// time in microseconds, one track per simulated goroutine (track 0 is the
// scheduler, the others in order of first appearance), and each record a
// slice that lasts until its goroutine's next record, so a sleep or a
// blocked wait shows as its length of virtual time. Records at one instant
// are zero-length slices in trace order; each carries its record number
// ("step") and virtual time as arguments. Clock advances are global
// instant events. Like the trace, it is a function of the run alone.
func Chrome(trace string) []byte {
	type rec struct {
		at   time.Duration
		g    string
		name string
	}
	var recs []rec
	for _, line := range Lines(trace) {
		f := strings.SplitN(line, " ", 3)
		if len(f) < 3 {
			continue
		}
		at, err := time.ParseDuration(f[0])
		if err != nil {
			continue
		}
		recs = append(recs, rec{at, f[1], f[2]})
	}
	tids := map[string]int{"-": 0}
	events := []timelineEvent{
		{Name: "process_name", Ph: "M", PID: 1, Args: map[string]any{"name": "podsim (virtual time)"}},
		{Name: "thread_name", Ph: "M", PID: 1, TID: 0, Args: map[string]any{"name": "scheduler"}},
	}
	next := make([]time.Duration, len(recs)) // each record's end: its goroutine's next record
	lastOf := map[string]int{}
	for i, r := range recs {
		if _, ok := tids[r.g]; !ok {
			tids[r.g] = len(tids)
			events = append(events, timelineEvent{Name: "thread_name", Ph: "M", PID: 1, TID: tids[r.g],
				Args: map[string]any{"name": r.g}})
		}
		if j, ok := lastOf[r.g]; ok {
			next[j] = r.at
		}
		next[i], lastOf[r.g] = r.at, i
	}
	for i, r := range recs {
		args := map[string]any{"step": i + 1, "virtual_time": r.at.String()}
		if r.g == "-" && strings.HasPrefix(r.name, "advance") {
			events = append(events, timelineEvent{Name: "clock → " + r.at.String(), Ph: "i", TS: micros(r.at), PID: 1,
				Scope: "g", Args: args})
			continue
		}
		dur := micros(next[i] - r.at)
		events = append(events, timelineEvent{Name: r.name, Ph: "X", TS: micros(r.at), Dur: &dur, PID: 1, TID: tids[r.g],
			Args: args})
	}
	data, err := json.Marshal(map[string]any{"traceEvents": events, "displayTimeUnit": "ms"})
	if err != nil {
		panic("simrun: timeline: " + err.Error())
	}
	return data
}

// timelineEvent is one Chrome trace event.
type timelineEvent struct {
	Name  string         `json:"name"`
	Ph    string         `json:"ph"`
	TS    float64        `json:"ts"`
	Dur   *float64       `json:"dur,omitempty"`
	PID   int            `json:"pid"`
	TID   int            `json:"tid"`
	Scope string         `json:"s,omitempty"`
	Args  map[string]any `json:"args,omitempty"`
}

// micros is d in (fractional) microseconds, trace events' unit.
func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
