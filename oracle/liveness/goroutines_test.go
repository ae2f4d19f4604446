package liveness

import (
	"reflect"
	"strings"
	"testing"
	"time"

	k8stypes "k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/oracle"
)

// leakScript is a hand-made history of worker-goroutine notes: each step
// is a note at a virtual time, from a goroutine.
type leakStep struct {
	at   time.Duration
	by   string
	note history.Note
}

func runLeaks(steps []leakStep) []history.Violation { return runLeaksOn(NewWorkerLeaks(), steps) }

// runLeaksOn is runLeaks on o.
func runLeaksOn(o oracle.Oracle, steps []leakStep) []history.Violation {
	var v oracle.View
	for i, s := range steps {
		o.Observe(v, &history.Event{Kind: history.Noted, Seq: int64(i), At: s.at, Goroutine: s.by, Note: s.note})
	}
	return o.Finish(v, nil)
}

func started(name, uid string, kubelet int) history.WorkerStarted {
	return history.WorkerStarted{Goroutine: name, UID: k8stypes.UID(uid), Kubelet: kubelet}
}

func ended(name, uid string, kubelet int) history.WorkerEnded {
	return history.WorkerEnded{Goroutine: name, UID: k8stypes.UID(uid), Kubelet: kubelet}
}

// TestL10WorkerLeaks: every worker goroutine started must have ended by the
// end of the drain; the failure names the goroutine, its pod, its kubelet
// process, when and by whom it started and what it was last waiting for.
func TestL10WorkerLeaks(t *testing.T) {
	s := time.Second
	drain := func(stuck ...history.StuckWorker) history.WorkerDrainEnded {
		return history.WorkerDrainEnded{Bound: 2 * s, Waited: 2 * s, Stuck: stuck}
	}
	tests := []struct {
		name  string
		steps []leakStep
		want  []string // a substring of each violation, in order
	}{{
		name: "all ended",
		steps: []leakStep{{1 * s, "client/0", started("worker/a", "a", 0)}, {2 * s, "client/1", started("worker/b", "b", 0)},
			{9 * s, "worker/b", ended("worker/b", "b", 0)}, {30 * s, "worker/a", ended("worker/a", "a", 0)},
			{30 * s, "driver", drain()}},
	}, {
		name: "a purged record's worker leaks",
		steps: []leakStep{{1 * s, "client/0", started("worker/a", "a", 0)}, {2 * s, "client/1", started("worker/b", "b", 0)},
			{30 * s, "worker/a", ended("worker/a", "a", 0)},
			{32 * s, "driver", drain(history.StuckWorker{Goroutine: "worker/b", Waiting: "waiting on signal updates/b since 3s"})}},
		want: []string{"worker goroutine worker/b (pod b, kubelet process 0), started at 2s by client/1, is still running 2s " +
			"after the workers' Shutdown (the drain's bound is 2s): last waiting on signal updates/b since 3s"},
	}, {
		// No drain note: a target that does not note its goroutines, or a
		// run that ended before the drain, is not judged.
		name:  "no drain note",
		steps: []leakStep{{1 * s, "client/0", started("worker/a", "a", 0)}},
	}, {
		// Looks like "worker/a ended", but that is the first generation:
		// the reused UID's second worker leaks, and so does the first
		// kubelet process's worker/b, whose name the restarted process's
		// ended worker shares. Both are named, in start order, the second
		// without a wait the target could tell.
		name: "a new bug that looks like a known one",
		steps: []leakStep{{1 * s, "client/0", started("worker/a", "a", 0)}, {2 * s, "client/0", started("worker/b", "b", 0)},
			{3 * s, "worker/a", ended("worker/a", "a", 0)}, {4 * s, "housekeeping", started("worker/a#2", "a", 0)},
			{5 * s, "syncloop", started("worker/b", "b", 1)}, {6 * s, "worker/b", ended("worker/b", "b", 1)},
			{40 * s, "driver", drain(history.StuckWorker{Goroutine: "worker/a#2", Waiting: "in SyncPod since 39s"})}},
		want: []string{"worker/b (pod b, kubelet process 0), started at 2s by client/0, is still running 2s after the workers' Shutdown " +
			"(the drain's bound is 2s): the target did not say what it waits for",
			"worker/a#2 (pod a, kubelet process 0), started at 4s by housekeeping, is still running 2s after the workers' Shutdown " +
				"(the drain's bound is 2s): last in SyncPod since 39s"},
	}, {
		// Notes after the drain are not judged (nothing is owed then).
		name: "after the drain",
		steps: []leakStep{{1 * s, "client/0", started("worker/a", "a", 0)}, {1 * s, "worker/a", ended("worker/a", "a", 0)},
			{5 * s, "driver", drain()}, {6 * s, "x", started("worker/z", "z", 0)}},
	}}
	reused := NewWorkerLeaks() // one check for every case, Reset between: the same verdicts
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := runLeaks(tc.steps)
			reused.(oracle.Resetter).Reset()
			if again := runLeaksOn(reused, tc.steps); !reflect.DeepEqual(again, got) {
				t.Errorf("reset and reused: %v, fresh: %v", again, got)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %d violations %v, want %d", len(got), got, len(tc.want))
			}
			for i, v := range got {
				if v.Oracle != "liveness" || v.Invariant != "L10" || !strings.Contains(v.Message, tc.want[i]) {
					t.Errorf("violation %d: got %s, want liveness/L10 containing %q", i, v, tc.want[i])
				}
			}
		})
	}
}
