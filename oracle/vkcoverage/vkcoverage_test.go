package vkcoverage

import (
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/oracle/coverage"
)

// story is a VK history written by hand: the notes, in order.
type story []history.Note

func (s story) and(n ...history.Note) story { return append(slices.Clone(s), n...) }

func (s story) coverage() coverage.Coverage {
	t := New()
	for i, n := range s {
		t.Observe(&history.Event{Seq: int64(i + 1), Kind: history.Noted, Note: n})
	}
	return t.Coverage()
}

// tuplesOf is the path of one pod through the tuples, in order: each
// tuple a visit moved it to (the pod's handle changed; nothing changes
// after a visit within one event, so its tuple is the one visited).
func (s story) tuplesOf(uid types.UID) []string {
	t := New()
	var out []string
	last := 0
	for _, n := range s {
		t.Observe(&history.Event{Kind: history.Noted, Note: n})
		if p := t.pods[uid]; p != nil && p.last != last {
			last = p.last
			out = append(out, string(t.appendTuple(nil, p)))
		}
	}
	return out
}

func has(c coverage.Coverage, tuple string) bool { return slices.Contains(c.Tuples, tuple) }

func hasTransition(c coverage.Coverage, from, to string) bool {
	return slices.Contains(c.TransitionKeys(), from+">"+to)
}

// started is a controller started and Ready.
var started = story{history.VKStarted{Epoch: 1}, history.VKReady{Epoch: 1}}

// healthy: pod a (web) created, created in the provider, notified Running,
// its status written.
func healthy() story {
	return started.and(history.VKCreated{UID: "a", Name: "web"}, history.VKProviderCreated{UID: "a"},
		history.VKNotified{UID: "a", Phase: v1.PodRunning, Version: 1},
		history.VKStatusWritten{UID: "a", Phase: v1.PodRunning, Version: 1})
}

// TestHealthyPod: a pod's tuples follow its life, one per note, with the
// transitions between them.
func TestHealthyPod(t *testing.T) {
	want := []string{
		"live|-|-|-|-|-|created|ready|-",
		"live|-|in|-|-|-|pcreated|ready|acted",
		"live|-|in|R|behind|-|notified|ready|acted",
		"live|-|in|R|cur|-|written|ready|acted",
	}
	c := healthy().coverage()
	if got := healthy().tuplesOf("a"); !slices.Equal(got, want) {
		t.Fatalf("tuples\n got %q\nwant %q", got, want)
	}
	if len(c.Tuples) != len(want) || len(c.Transitions) != len(want)-1 {
		t.Fatalf("coverage %v: want %d tuples and %d transitions", c, len(want), len(want)-1)
	}
	for i := 1; i < len(want); i++ {
		if !hasTransition(c, want[i-1], want[i]) {
			t.Errorf("no transition %s > %s in %v", want[i-1], want[i], c.TransitionKeys())
		}
	}
	if hasTransition(c, want[0], want[2]) {
		t.Error("a transition between tuples that were not consecutive")
	}
}

// TestNameShared: a pod re-created under the name of one still deleting
// shares the name until the old one left the API and the provider.
func TestNameShared(t *testing.T) {
	s := healthy().and(history.VKDeleteRequested{UID: "a", Grace: 30, By: "client"},
		history.VKCreated{UID: "b", Name: "web"}, // a still in the API
		history.VKRemoved{UID: "a", By: "controller", Precondition: "a"},
		history.VKStatusWritten{UID: "b", Phase: v1.PodPending}, // a still in the provider
		history.VKProviderDeleted{UID: "a"},
		history.VKProviderCreated{UID: "b"}) // a gone everywhere
	c := s.coverage()
	for _, want := range []string{"live|shared|-|-|-|-|created|ready|-", "live|shared|-|-|own|-|written|ready|acted",
		"live|-|in|-|own|-|pcreated|ready|acted",
		"gone|shared|in|R|cur|-|removed-controller|ready|acted", "gone|shared|gone|R|cur|-|pdeleted|ready|acted"} {
		if !has(c, want) {
			t.Errorf("no %q in %v", want, c.Tuples)
		}
	}
	// A pod of another name never shares.
	other := healthy().and(history.VKDeleteRequested{UID: "a", Grace: 30, By: "client"}, history.VKCreated{UID: "b", Name: "db"})
	for _, tu := range other.coverage().Tuples {
		if strings.Contains(tu, "shared") {
			t.Fatalf("pods of different names share: %v", tu)
		}
	}
}

// TestStatusWrites: failed writes show their error and repeat, a landed
// write clears them; an edit stands until a write lands, even after the
// provider notifies again.
func TestStatusWrites(t *testing.T) {
	s := healthy().and(history.VKNotified{UID: "a", Phase: v1.PodSucceeded, Version: 2},
		history.VKStatusWriteFailed{UID: "a", Err: "conflict"},
		history.VKStatusWriteFailed{UID: "a", Err: "not found"},
		history.VKStatusWritten{UID: "a", Phase: v1.PodSucceeded, Version: 2},
		history.VKEdited{UID: "a"},
		history.VKNotified{UID: "a", Phase: v1.PodSucceeded, Version: 2},
		history.VKStatusWriteFailed{UID: "a", Err: "transient"},
		history.VKStatusWritten{UID: "a", Phase: v1.PodSucceeded, Version: 2})
	want := []string{
		"live|-|in|S|behind|-|notified|ready|acted",
		"live|-|in|S|behind|conflict|failed|ready|acted",
		"live|-|in|S|behind|notfoundx2|failed|ready|acted",
		"live|-|in|S|cur|-|written|ready|acted",
		"live|-|in|S|edit|-|edited|ready|acted",
		"live|-|in|S|edit|-|notified|ready|acted",
		"live|-|in|S|edit|transient|failed|ready|acted",
		"live|-|in|S|cur|-|written|ready|acted",
	}
	if got := s.tuplesOf("a"); !slices.Equal(got[len(got)-len(want):], want) {
		t.Fatalf("tuples\n got %q\nwant ...%q", got, want)
	}
}

// TestControllerLife: a pod there before the start is visited at each
// change of the controller's life; acted resets at a restart; a pod gone
// from the API and the provider is no longer visited.
func TestControllerLife(t *testing.T) {
	s := story{history.VKCreated{UID: "a", Name: "web"}, history.VKDeleteRequested{UID: "a", Grace: 5, By: "client"},
		history.VKProviderCreated{UID: "x"}, // a provider-only pod, there before the start
		history.VKCreated{UID: "g", Name: "old"}, history.VKRemoved{UID: "g", By: "client"},
		history.VKStarted{Epoch: 1}, history.VKReady{Epoch: 1},
		history.VKProviderCreated{UID: "a"},
		history.VKCancelled{Epoch: 1}, history.VKDone{Epoch: 1},
		history.VKStarted{Epoch: 2}, history.VKReady{Epoch: 2}, history.VKCancelled{Epoch: 2}, history.VKDone{Epoch: 2, Err: "boom"}}
	want := []string{
		"live|-|-|-|-|-|created|-|-",
		"del|-|-|-|-|-|delreq-client|-|-",
		"del|-|-|-|-|-|delreq-client|start|-",
		"del|-|-|-|-|-|delreq-client|ready|-",
		"del|-|in|-|-|-|pcreated|ready|acted",
		"del|-|in|-|-|-|pcreated|cancel|acted",
		"del|-|in|-|-|-|pcreated|done|acted",
		"del|-|in|-|-|-|pcreated|start+restarted|-",
		"del|-|in|-|-|-|pcreated|ready+restarted|-",
		"del|-|in|-|-|-|pcreated|cancel+restarted|-",
		"del|-|in|-|-|-|pcreated|done!err+restarted|-",
	}
	if got := s.tuplesOf("a"); !slices.Equal(got, want) {
		t.Fatalf("tuples\n got %q\nwant %q", got, want)
	}
	c := s.coverage()
	for _, want := range []string{"-|-|in|-|-|-|pcreated|-|-", "-|-|in|-|-|-|pcreated|start|-"} {
		if !has(c, want) {
			t.Errorf("provider-only pod: no %q in %v", want, c.Tuples)
		}
	}
	for _, tu := range c.Tuples {
		if strings.HasPrefix(tu, "gone|") && !strings.HasSuffix(tu, "|-|-") {
			t.Errorf("a removed pod was visited at a change of the controller's life: %q", tu)
		}
	}
}

// TestProviderDeletion: a deletion the provider starts shows as "+del"
// from the notification on; a removal without the pod's own UID as
// precondition shows as "!pre", one with it does not.
func TestProviderDeletion(t *testing.T) {
	s := healthy().and(history.VKNotified{UID: "a", Phase: v1.PodRunning, Version: 2, Deleting: true},
		history.VKRemoved{UID: "a", By: "controller"})
	for _, want := range []string{"live|-|in+del|R|behind|-|notified|ready|acted", "gone|-|in+del|R|behind|-|removed-controller!pre|ready|acted"} {
		if !has(s.coverage(), want) {
			t.Errorf("no %q in %v", want, s.coverage().Tuples)
		}
	}
	withPre := healthy().and(history.VKRemoved{UID: "a", By: "controller", Precondition: "a"})
	for _, tu := range withPre.coverage().Tuples {
		if strings.Contains(tu, "+del") || strings.Contains(tu, "!pre") {
			t.Errorf("%q: no provider deletion, a removal with its own precondition", tu)
		}
	}
}

// TestOtherEventsIgnored: events other than VK notes change nothing, and
// the same notes give the same coverage, sorted.
func TestOtherEventsIgnored(t *testing.T) {
	tr := New()
	for _, n := range healthy() {
		tr.Observe(&history.Event{Kind: history.Noted, Note: n})
		tr.Observe(&history.Event{Kind: history.LockReleasing, Goroutine: "g"})
		tr.Observe(&history.Event{Kind: history.Noted, Note: history.ShutdownBegins{}})
	}
	a, b := tr.Coverage(), healthy().coverage()
	if !slices.Equal(a.Tuples, b.Tuples) || !slices.Equal(a.TransitionKeys(), b.TransitionKeys()) || !slices.IsSorted(a.Tuples) {
		t.Fatalf("coverage %v, want %v, sorted", a, b)
	}
}

// TestProviderAnswers: a provider call's error answer is the pod's newest
// note until the next, with transitions in and out; it keeps the other
// fields, and a tracker nobody reports answers to never reaches it.
func TestProviderAnswers(t *testing.T) {
	tr := New()
	for _, n := range healthy().and(history.VKDeleteRequested{UID: "a", By: "client"}) {
		tr.Observe(&history.Event{Kind: history.Noted, Note: n})
	}
	tr.Answered("a", "delete-notfound")
	tr.Observe(&history.Event{Kind: history.Noted, Note: history.VKRemoved{UID: "a", By: "controller", Precondition: "a"}})
	c := tr.Coverage()
	before := "del|-|in|R|cur|-|delreq-client|ready|acted"
	answer := "del|-|in|R|cur|-|pdelete-notfound|ready|acted"
	after := "gone|-|in|R|cur|-|removed-controller|ready|acted"
	if !hasTransition(c, before, answer) || !hasTransition(c, answer, after) {
		t.Fatalf("want %s > %s > %s in %v", before, answer, after, c.TransitionKeys())
	}
	plain := healthy().and(history.VKDeleteRequested{UID: "a", By: "client"},
		history.VKRemoved{UID: "a", By: "controller", Precondition: "a"}).coverage()
	if has(plain, answer) || !has(plain, after) || !hasTransition(plain, before, after) {
		t.Fatalf("without the answer: %v", plain.TransitionKeys())
	}
	if len(c.Tuples) != len(plain.Tuples)+1 {
		t.Fatalf("the answer should add one tuple: %d against %d", len(c.Tuples), len(plain.Tuples))
	}
}
