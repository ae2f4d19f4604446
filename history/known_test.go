package history

import (
	"testing"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/model/ops"
)

// TestKnownFromHistory walks the derivation's cases: an accepted update is
// known before SyncKnownPods although it answers like an unknown UID; a
// non-kill runtime update makes no record; a record whose answers differed
// and came back is gone; after SyncKnownPods the answers alone decide; a
// restart forgets everything.
func TestKnownFromHistory(t *testing.T) {
	k := NewKnownFromHistory()
	seq := int64(0)
	release := func(g string, synced bool, answers map[types.UID]Answers) map[types.UID]bool {
		seq++
		ev := k.Rewrite(Event{Seq: seq, Kind: LockReleasing, Goroutine: g, Probe: NewProbe(synced, answers, nil)})
		out := map[types.UID]bool{}
		for _, pa := range ev.Probe.Pods {
			out[pa.UID] = pa.Known
		}
		return out
	}
	call := func(g string, in ops.Input) {
		seq++
		k.Rewrite(Event{Seq: seq, Kind: ClientCall, Goroutine: g, Input: in})
	}
	before, after := UnknownAnswers(false), UnknownAnswers(true)
	terminating := Answers{CouldHaveRunning: true, TerminationRequested: true}
	call("client/0", ops.UpdatePod{Type: ops.Create, Pod: ops.Pod{UID: "a"}})
	call("client/1", ops.UpdatePod{Type: ops.Update, RuntimeOnly: true, Pod: ops.Pod{UID: "b"}})
	call("client/2", ops.UpdatePod{Type: ops.Kill, RuntimeOnly: true, Pod: ops.Pod{UID: "c"}})
	if got := release("worker/x", false, map[types.UID]Answers{"a": before}); got["a"] {
		t.Fatalf("a is known before its update took effect: %v", got)
	}
	got := release("client/0", false, map[types.UID]Answers{"a": before, "b": before, "c": before})
	if !got["a"] || got["b"] || got["c"] {
		t.Fatalf("after client/0's section: got %v, want only a known (c's kill has not taken effect)", got)
	}
	release("client/1", false, map[types.UID]Answers{"b": before})
	if got := release("client/2", false, map[types.UID]Answers{"b": before, "c": terminating}); got["b"] || !got["c"] {
		t.Fatalf("a non-kill runtime update made b known, or the runtime kill did not make c known: %v", got)
	}
	if got := release("worker/c", false, map[types.UID]Answers{"c": before}); got["c"] {
		t.Fatalf("c's runtime-only record removed itself, still known: %v", got)
	}
	if got := release("housekeeping", true, map[types.UID]Answers{"a": after, "c": {BeFinished: false, ContainersBeTerminating: true}}); got["a"] || !got["c"] {
		t.Fatalf("after SyncKnownPods the answers decide: got %v, want a unknown, c known", got)
	}
	call("client/0", ops.UpdatePod{Type: ops.Create, Pod: ops.Pod{UID: "d"}})
	seq++
	k.Rewrite(Event{Seq: seq, Kind: Restarted})
	if got := release("client/0", false, map[types.UID]Answers{"d": before}); got["d"] {
		t.Fatalf("a call of the old pod workers made d known after the restart: %v", got)
	}
}
