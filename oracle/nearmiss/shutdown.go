package nearmiss

import (
	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model"
)

// shutdown follows L10's other half: a restart shuts the old process's pod
// workers down, and each of its worker goroutines must then return once
// its current sync call does. It records what every worker goroutine was
// doing at that shutdown (in a callback, or waiting for work), and that a
// stopped worker did return:
//
//	liveness/L10/live-at-shutdown/<in-<callback>|waiting>
//	liveness/L10/ended-after-shutdown/<in-<callback>|waiting>
type shutdown struct {
	live    map[string]string // the current process's worker goroutines: what each is doing
	stopped map[string]string // stopped processes' worker goroutines still running: what each did at the shutdown
}

func newShutdown() shutdown {
	return shutdown{live: map[string]string{}, stopped: map[string]string{}}
}

// observe follows one event of the tracker's.
func (s *shutdown) observe(sink Sink, process int, ev history.Event) {
	switch ev.Kind {
	case history.Noted:
		switch n := ev.Note.(type) {
		case history.WorkerStarted:
			if n.Kubelet == process {
				s.live[n.Goroutine] = waiting
			}
		case history.WorkerEnded:
			if at, ok := s.stopped[n.Goroutine]; ok && n.Kubelet < process {
				sink.Near(L10, "ended-after-shutdown/"+at)
				delete(s.stopped, n.Goroutine)
			}
			delete(s.live, n.Goroutine)
		}
	case history.CallbackBegin:
		if in, ok := ev.Input.(model.SyncBegin); ok {
			if _, live := s.live[ev.Goroutine]; live {
				s.live[ev.Goroutine] = "in-" + in.Fn.String()
			}
		}
	case history.CallbackEnd:
		if _, live := s.live[ev.Goroutine]; live {
			s.live[ev.Goroutine] = waiting
		}
	case history.Restarted:
		for g, doing := range s.live {
			sink.Near(L10, "live-at-shutdown/"+doing)
			s.stopped[g] = doing
		}
		s.live = map[string]string{}
	}
}

// waiting is a live worker goroutine between callbacks.
const waiting = "waiting"
