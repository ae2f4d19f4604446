package vk

import (
	"errors"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/podsim/podsim/history"
)

// story is a VK history written by hand: notes at virtual times.
type story struct {
	events []history.Event
	at     time.Duration
}

func (s *story) after(d time.Duration) *story { s.at += d; return s }

func (s *story) note(n history.Note) *story {
	s.events = append(s.events, history.Event{Seq: int64(len(s.events) + 1), At: s.at, Kind: history.Noted, Note: n})
	return s
}

// healthy is a correct run: a started controller, pod a created, running
// with status v1 in the provider and the API, then stopped cleanly.
func healthy() *story {
	s := &story{}
	s.note(history.VKStarted{Epoch: 1}).note(history.VKReady{Epoch: 1})
	s.note(history.VKCreated{UID: "a", Name: "web"}).note(history.VKProviderCreated{UID: "a"})
	s.note(history.VKNotified{UID: "a", Phase: v1.PodRunning, Version: 1})
	s.note(history.VKStatusWritten{UID: "a", Phase: v1.PodRunning, Version: 1})
	return s
}

func (s *story) stop() *story {
	return s.note(history.VKCancelled{Epoch: 1}).note(history.VKDone{Epoch: 1})
}

func (s *story) settle(f history.VKFinal) *story { return s.note(history.VKSettled{Final: f}) }

var runningA = history.VKFinal{
	API:      []history.VKAPIPod{{UID: "a", Name: "web", Phase: v1.PodRunning, Version: 1}},
	Provider: []history.VKProviderPod{{UID: "a", Phase: v1.PodRunning, Version: 1}},
}

func judge(s *story, runErr error) []history.Violation {
	o := New()
	for _, ev := range s.events {
		o.Observe(nil, &ev)
	}
	return o.Finish(nil, runErr)
}

// deleteA is healthy's pod a deleted by a client with grace 30.
func deleteA() *story {
	return healthy().after(time.Second).note(history.VKDeleteRequested{UID: "a", Grace: 30, By: "client"})
}

func TestVKOracle(t *testing.T) {
	gone := history.VKFinal{}
	cases := []struct {
		name  string
		story *story
		want  string // "" for no violation; else the invariant and a piece of its message
	}{
		{"healthy", healthy().stop().settle(runningA), ""},
		{"deleted after terminal", deleteA().note(history.VKProviderDeleted{UID: "a"}).
			note(history.VKNotified{UID: "a", Phase: v1.PodSucceeded, Version: 2}).
			note(history.VKRemoved{UID: "a", By: "controller", Precondition: "a"}).stop().settle(gone), ""},
		{"forced after grace", deleteA().after(30 * time.Second).
			note(history.VKRemoved{UID: "a", By: "controller", Precondition: "a"}).
			note(history.VKProviderDeleted{UID: "a"}).stop().settle(gone), ""},
		{"identity: no precondition", deleteA().note(history.VKProviderDeleted{UID: "a"}).
			note(history.VKRemoved{UID: "a", By: "controller"}).stop().settle(gone), "VK1"},
		{"deletion: removed though never deleted (a re-created pod)", healthy().
			note(history.VKRemoved{UID: "a", By: "controller", Precondition: "a"}).
			note(history.VKProviderDeleted{UID: "a"}).stop().settle(gone), "VK3 the controller removed pod a (web) from the API although nobody"},
		{"deletion: removed at once when the API says it does not run", (&story{}).note(history.VKStarted{Epoch: 1}).
			note(history.VKReady{Epoch: 1}).note(history.VKCreated{UID: "a", Name: "web"}).
			note(history.VKDeleteRequested{UID: "a", Grace: 30, By: "client"}).
			note(history.VKRemoved{UID: "a", By: "controller", Precondition: "a"}).stop().settle(gone), ""},
		{"status: an edit of a terminal status stands", healthy().note(history.VKNotified{UID: "a", Phase: v1.PodSucceeded, Version: 2}).
			note(history.VKStatusWritten{UID: "a", Phase: v1.PodSucceeded, Version: 2}).note(history.VKEdited{UID: "a"}).stop().
			settle(history.VKFinal{API: []history.VKAPIPod{{UID: "a", Name: "web", Phase: v1.PodSucceeded}},
				Provider: []history.VKProviderPod{{UID: "a", Phase: v1.PodSucceeded, Version: 2}}}), ""},
		{"deletion: removed before terminal and grace", deleteA().after(time.Second).
			note(history.VKRemoved{UID: "a", By: "controller", Precondition: "a"}).
			note(history.VKProviderDeleted{UID: "a"}).stop().settle(gone), "VK3 the controller removed pod a (web) from the API at 2s while its status said Running"},
		{"deletion: never finished", deleteA().stop().settle(history.VKFinal{
			API: []history.VKAPIPod{{UID: "a", Name: "web", Deleting: true}}, Provider: runningA.Provider}), "VK3 pod a (web) is still in the API"},
		{"deletion: still in the provider", deleteA().after(30 * time.Second).
			note(history.VKRemoved{UID: "a", By: "controller", Precondition: "a"}).stop().
			settle(history.VKFinal{Provider: runningA.Provider}), "VK3 pod a (web) left the API but still runs"},
		{"deletion: re-created in the provider", deleteA().note(history.VKProviderDeleted{UID: "a"}).
			note(history.VKProviderCreated{UID: "a"}).stop().settle(runningA), "VK3 pod a was created in the provider again"},
		{"deletion: provider-initiated never propagated", healthy().
			note(history.VKProviderDeleted{UID: "a", ByProvider: true}).
			note(history.VKNotified{UID: "a", Phase: v1.PodRunning, Version: 2, Deleting: true}).stop().
			settle(history.VKFinal{API: runningA.API}), "VK3 the provider deleted pod a (web) by itself"},
		{"startup: terminating at start never finished", (&story{}).note(history.VKCreated{UID: "a", Name: "web"}).
			note(history.VKDeleteRequested{UID: "a", Grace: 5, By: "client"}).
			note(history.VKStarted{Epoch: 1}).note(history.VKReady{Epoch: 1}).stop().
			settle(history.VKFinal{API: []history.VKAPIPod{{UID: "a", Name: "web", Deleting: true}}}), "VK4"},
		{"status: last notified lost", healthy().note(history.VKNotified{UID: "a", Phase: v1.PodRunning, Version: 2}).stop().
			settle(history.VKFinal{API: runningA.API, Provider: []history.VKProviderPod{{UID: "a", Phase: v1.PodRunning, Version: 2}}}),
			"VK2 the provider's last status for pod a (web), v2 Running, never reached the API, which holds v1 Running"},
		{"status: an edit stands until the provider notifies again", healthy().note(history.VKEdited{UID: "a"}).stop().
			settle(history.VKFinal{API: []history.VKAPIPod{{UID: "a", Name: "web", Phase: v1.PodRunning}}, Provider: runningA.Provider}), ""},
		{"status: unchanged status after an edit never written", healthy().note(history.VKEdited{UID: "a"}).
			note(history.VKNotified{UID: "a", Phase: v1.PodRunning, Version: 1}).stop().
			settle(history.VKFinal{API: []history.VKAPIPod{{UID: "a", Name: "web", Phase: v1.PodRunning}}, Provider: runningA.Provider}), "VK2"},
		{"dangling: never deleted", healthy().stop().settle(history.VKFinal{API: runningA.API,
			Provider: append([]history.VKProviderPod{{UID: "x", Phase: v1.PodRunning}}, runningA.Provider...)}),
			"VK5 provider pod x has no API object"},
		{"dangling: a live pod deleted", healthy().note(history.VKProviderDeleted{UID: "a"}).note(history.VKProviderCreated{UID: "b"}).
			stop().settle(runningA), "VK5 the controller deleted pod a (web) from the provider while its API object lives"},
		{"sync: never created in the provider", healthy().note(history.VKCreated{UID: "b", Name: "db"}).stop().
			settle(history.VKFinal{API: append(runningA.API, history.VKAPIPod{UID: "b", Name: "db", Phase: v1.PodPending}),
				Provider: runningA.Provider}), "VK6 pod b (db) is live in the API but does not run"},
		{"liveness: never ready", (&story{}).note(history.VKStarted{Epoch: 1}).stop().settle(history.VKFinal{}), "VK7 controller start 1 never became Ready"},
		{"liveness: Done never closed", healthy().note(history.VKCancelled{Epoch: 1}).settle(runningA), "VK7 controller start 1 was cancelled but Done"},
		{"liveness: Err", healthy().note(history.VKCancelled{Epoch: 1}).note(history.VKDone{Epoch: 1, Err: "boom"}).settle(runningA), `Err "boom"`},
		{"liveness: queues left", healthy().stop().settle(history.VKFinal{API: runningA.API, Provider: runningA.Provider, Queued: 2}),
			"VK7 2 items were left"},
		{"liveness: never settled", healthy().stop(), "VK7 the run never settled"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			vs := judge(tc.story, nil)
			if tc.want == "" {
				if len(vs) > 0 {
					t.Fatalf("got %v, want no violation", vs)
				}
				return
			}
			if len(vs) != 1 {
				t.Fatalf("got %d violations %v, want one matching %q", len(vs), vs, tc.want)
			}
			if got := vs[0].Invariant + " " + vs[0].Message; !strings.Contains(got, tc.want) {
				t.Fatalf("got %q, want it to contain %q", got, tc.want)
			}
		})
	}
}

// A failed run's verdict is its error: the end-of-run checks stay silent.
func TestVKOracleFailedRunSkipsEnd(t *testing.T) {
	if vs := judge(healthy(), errors.New("deadlock")); len(vs) != 0 {
		t.Fatalf("got %v, want none", vs)
	}
}

// recreatedWeb is V8's shape: pod web (a) running with status v1 is
// force-deleted by a client and re-created as b, which the provider runs.
func recreatedWeb() *story {
	return healthy().after(time.Second).note(history.VKDeleteRequested{UID: "a", Grace: 0, By: "client"}).
		note(history.VKRemoved{UID: "a", By: "client"}).note(history.VKProviderDeleted{UID: "a"}).
		note(history.VKCreated{UID: "b", Name: "web"}).note(history.VKProviderCreated{UID: "b"})
}

var runningB = history.VKFinal{
	API:      []history.VKAPIPod{{UID: "b", Name: "web", Phase: v1.PodPending}},
	Provider: []history.VKProviderPod{{UID: "b", Phase: v1.PodPending}},
}

// TestVKOracleCrashedController: V8's observable consequence. The
// controller whose process died (a status sync for a re-created pod
// dereferenced an empty tracking entry) acts no more: cancelled, its Done
// never closes and its queues hold the item it died on. The oracle reads
// this from the notes alone; the nearby healthy run passes, and so must a
// controller that hangs without crashing (a new bug of the same look) be
// caught.
func TestVKOracleCrashedController(t *testing.T) {
	cases := []struct {
		name  string
		story *story
		want  []string
	}{
		{"V8: crashed after the re-create", recreatedWeb().note(history.VKCancelled{Epoch: 1}).
			settle(history.VKFinal{API: runningB.API, Provider: runningB.Provider, Queued: 1}),
			[]string{"VK7 controller start 1 was cancelled but Done never closed", "VK7 1 items were left"}},
		{"the same run, healthy", recreatedWeb().stop().settle(runningB), nil},
		{"hung, not crashed: queues empty, Done never closed", recreatedWeb().note(history.VKCancelled{Epoch: 1}).
			settle(runningB), []string{"VK7 controller start 1 was cancelled but Done never closed"}},
		{"crashed, restarted: the first start still never closed Done", recreatedWeb().note(history.VKCancelled{Epoch: 1}).
			note(history.VKStarted{Epoch: 2}).note(history.VKReady{Epoch: 2}).
			note(history.VKCancelled{Epoch: 2}).note(history.VKDone{Epoch: 2}).settle(runningB),
			[]string{"VK7 controller start 1 was cancelled but Done never closed"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			vs := judge(tc.story, nil)
			if len(vs) != len(tc.want) {
				t.Fatalf("got %v, want %d violations %q", vs, len(tc.want), tc.want)
			}
			for i, v := range vs {
				if got := v.Invariant + " " + v.Message; !strings.Contains(got, tc.want[i]) {
					t.Errorf("violation %d: got %q, want it to contain %q", i, got, tc.want[i])
				}
			}
		})
	}
}

var testTiming = Timing{BaseBackoff: 5 * time.Millisecond, MaxBackoff: time.Second, NotifyWindow: 3 * time.Second}

func judgeTimed(s *story) []history.Violation {
	o := NewWithTiming(testTiming)
	for _, ev := range s.events {
		o.Observe(nil, &ev)
	}
	return o.Finish(nil, nil)
}

// failing is healthy's pod a notified v2, whose status writes fail at the
// given gaps after the notification and each other.
func failing(gaps ...time.Duration) *story {
	s := healthy().after(time.Second).note(history.VKNotified{UID: "a", Phase: v1.PodRunning, Version: 2})
	for _, g := range gaps {
		s.after(g).note(history.VKStatusWriteFailed{UID: "a", Err: "transient"})
	}
	return s
}

func (s *story) landV2() *story {
	return s.note(history.VKStatusWritten{UID: "a", Phase: v1.PodRunning, Version: 2}).stop().
		settle(history.VKFinal{API: []history.VKAPIPod{{UID: "a", Name: "web", Phase: v1.PodRunning, Version: 2}},
			Provider: []history.VKProviderPod{{UID: "a", Phase: v1.PodRunning, Version: 2}}})
}

// landV2epoch2 is landV2 in a second controller run.
func (s *story) landV2epoch2() *story {
	return s.note(history.VKStatusWritten{UID: "a", Phase: v1.PodRunning, Version: 2}).
		note(history.VKCancelled{Epoch: 2}).note(history.VKDone{Epoch: 2}).
		settle(history.VKFinal{API: []history.VKAPIPod{{UID: "a", Name: "web", Phase: v1.PodRunning, Version: 2}},
			Provider: []history.VKProviderPod{{UID: "a", Phase: v1.PodRunning, Version: 2}}})
}

// TestVKOracleRetryTiming: VK8 rejects a status retry sooner than the
// queue's own backoff when nothing queued it again (V7: another queue's
// Forget reset the backoff; or a new bug: a backoff that never grows), and
// accepts the nearby runs: the backoff respected, a notification between,
// an unchanged status notified again (skipped, queued later), another pod
// under the name notified lately, a controller restart between.
func TestVKOracleRetryTiming(t *testing.T) {
	ms := time.Millisecond
	cases := []struct {
		name  string
		story *story
		want  string
	}{
		{"backoff respected", failing(5*ms, 10*ms, 20*ms).after(40 * ms).landV2(), ""},
		{"V7: reset after two failures", failing(5*ms, 10*ms, 20*ms).after(5 * ms).landV2(),
			"VK8 the status write of pod a (web) was retried 5ms after its failure #3 in a row at 1.035s"},
		{"a backoff that never grows", failing(5*ms, 5*ms).after(5 * ms).landV2(), "VK8 the status write of pod a (web) was retried 5ms after its failure #2"},
		{"one failure, then base", failing(5 * ms).after(5 * ms).landV2(), ""},
		{"a notification between", failing(5*ms, 10*ms, 20*ms).
			note(history.VKNotified{UID: "a", Phase: v1.PodRunning, Version: 3}).after(5 * ms).
			note(history.VKStatusWritten{UID: "a", Phase: v1.PodRunning, Version: 3}).stop().
			settle(history.VKFinal{API: []history.VKAPIPod{{UID: "a", Name: "web", Phase: v1.PodRunning, Version: 3}},
				Provider: []history.VKProviderPod{{UID: "a", Phase: v1.PodRunning, Version: 3}}}), ""},
		{"an unchanged status notified again", failing(5*ms, 10*ms).
			note(history.VKNotified{UID: "a", Phase: v1.PodRunning, Version: 2}).after(20 * ms).
			note(history.VKStatusWriteFailed{UID: "a", Err: "conflict"}).after(5 * ms).landV2(), ""},
		{"not found ends the streak", failing(5*ms, 10*ms).after(20 * ms).
			note(history.VKStatusWriteFailed{UID: "a", Err: "not found"}).after(5 * ms).
			note(history.VKStatusWriteFailed{UID: "a", Err: "conflict"}).after(5 * ms).landV2(), ""},
		{"an unchanged status, then a cancel: the old run's workers retry before Done", failing(5 * ms).
			note(history.VKNotified{UID: "a", Phase: v1.PodRunning, Version: 2}).note(history.VKCancelled{Epoch: 1}).
			note(history.VKStatusWriteFailed{UID: "a", Err: "conflict"}).note(history.VKStatusWriteFailed{UID: "a", Err: "transient"}).
			note(history.VKDone{Epoch: 1}).note(history.VKStarted{Epoch: 2}).note(history.VKReady{Epoch: 2}).after(5 * ms).landV2epoch2(), ""},
		{"a cancel is no excuse by itself", failing(5 * ms).note(history.VKCancelled{Epoch: 1}).
			note(history.VKStatusWriteFailed{UID: "a", Err: "conflict"}).after(10 * ms).
			note(history.VKStatusWritten{UID: "a", Phase: v1.PodRunning, Version: 2}).note(history.VKDone{Epoch: 1}).
			settle(history.VKFinal{API: []history.VKAPIPod{{UID: "a", Name: "web", Phase: v1.PodRunning, Version: 2}},
				Provider: []history.VKProviderPod{{UID: "a", Phase: v1.PodRunning, Version: 2}}}),
			"VK8 the status write of pod a (web) was retried 0s after its failure #1 in a row at 1.005s"},
		{"a restart between", failing(5*ms, 10*ms, 20*ms).note(history.VKCancelled{Epoch: 1}).note(history.VKDone{Epoch: 1}).
			note(history.VKStarted{Epoch: 2}).note(history.VKReady{Epoch: 2}).after(5 * ms).
			note(history.VKStatusWritten{UID: "a", Phase: v1.PodRunning, Version: 2}).
			note(history.VKCancelled{Epoch: 2}).note(history.VKDone{Epoch: 2}).
			settle(history.VKFinal{API: []history.VKAPIPod{{UID: "a", Name: "web", Phase: v1.PodRunning, Version: 2}},
				Provider: []history.VKProviderPod{{UID: "a", Phase: v1.PodRunning, Version: 2}}}), ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			vs := judgeTimed(tc.story)
			switch {
			case tc.want == "" && len(vs) > 0:
				t.Fatalf("got %v, want no violation", vs)
			case tc.want == "":
			case len(vs) != 1:
				t.Fatalf("got %d violations %v, want one matching %q", len(vs), vs, tc.want)
			case !strings.Contains(vs[0].Invariant+" "+vs[0].Message, tc.want):
				t.Fatalf("got %q, want it to contain %q", vs[0].Invariant+" "+vs[0].Message, tc.want)
			}
		})
	}
	// Told no timing (a target that states none), VK8 judges nothing.
	if vs := judge(failing(5*ms, 10*ms, 20*ms).after(5*ms).landV2(), nil); len(vs) != 0 {
		t.Errorf("New(): got %v, want VK8 off", vs)
	}
}

// TestVKOracleRetryTimingOtherPodUnderTheName: a notification of another
// pod under the same name within NotifyWindow before a failure may queue
// the name's status write late: the retry is not judged; one older than
// the window is no excuse.
func TestVKOracleRetryTimingOtherPodUnderTheName(t *testing.T) {
	ms := time.Millisecond
	other := func(ago time.Duration) *story {
		s := healthy().note(history.VKCreated{UID: "b", Name: "web"}).
			note(history.VKNotified{UID: "b", Phase: v1.PodRunning, Version: 1}).after(ago)
		s.note(history.VKNotified{UID: "a", Phase: v1.PodRunning, Version: 2})
		for _, g := range []time.Duration{5 * ms, 10 * ms, 20 * ms} {
			s.after(g).note(history.VKStatusWriteFailed{UID: "a", Err: "conflict"})
		}
		return s.after(5 * ms).note(history.VKStatusWritten{UID: "a", Phase: v1.PodRunning, Version: 2})
	}
	if vs := vk8(judgeTimed(other(time.Second))); len(vs) != 0 {
		t.Errorf("b notified 1s before: got %v, want no VK8", vs)
	}
	if vs := vk8(judgeTimed(other(10 * time.Second))); len(vs) != 1 {
		t.Errorf("b notified 10s before: got %v, want one VK8", vs)
	}
}

func vk8(vs []history.Violation) []history.Violation {
	var out []history.Violation
	for _, v := range vs {
		if v.Invariant == "VK8" {
			out = append(out, v)
		}
	}
	return out
}
