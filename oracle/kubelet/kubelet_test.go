package kubelet

import (
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/oracle"
)

// fakeView is a node with pods a, b and c in config and in the API (a and
// c admitted, b rejected at admission), whose pod workers answer what the
// test sets.
type fakeView struct {
	pods    map[types.UID]*oracle.KubeletPod
	answers map[types.UID]oracle.Answers
}

func newFakeView() *fakeView {
	v := &fakeView{pods: map[types.UID]*oracle.KubeletPod{}, answers: map[types.UID]oracle.Answers{}}
	for i, uid := range []types.UID{"a", "b", "c"} {
		v.pods[uid] = &oracle.KubeletPod{Name: "pod-" + string(uid), Incarnation: i + 1, InConfig: true, InAPI: true,
			Phase: v1.PodRunning, Admitted: uid != "b", Rejected: uid == "b", DeletedAt: -1}
	}
	return v
}

func (v *fakeView) Settle() *oracle.Settle                { return nil }
func (v *fakeView) Config(types.UID) oracle.PodConfig     { return oracle.PodConfig{} }
func (v *fakeView) Kubelet() oracle.Kubelet               { return fakeKubelet{v} }
func (v *fakeView) Elapsed() time.Duration                { return 0 }
func (k fakeKubelet) UIDs() []types.UID                   { return []types.UID{"a", "b", "c"} }
func (k fakeKubelet) Pod(uid types.UID) oracle.KubeletPod { return *k.v.pods[uid] }
func (k fakeKubelet) APIServer() bool                     { return true }
func (k fakeKubelet) ShutdownAt() time.Duration           { return 7 * time.Second }
func (k fakeKubelet) ShuttingDown() bool                  { return true }

type fakeKubelet struct{ v *fakeView }

// script feeds the oracle: commit answers at a lock release, then notes.
type script struct {
	o   oracle.Oracle
	v   *fakeView
	seq int64
}

func (s *script) commit(uid types.UID, a oracle.Answers) {
	s.v.answers[uid] = a
	s.seq++
	s.o.Observe(s.v, &history.Event{Seq: s.seq, Kind: history.LockReleasing, Goroutine: "client/0",
		Probe: history.NewProbe(true, s.v.answers, nil)})
}

func (s *script) note(n history.Note) {
	s.o.Observe(s.v, &history.Event{Seq: s.seq, Kind: history.Noted, Goroutine: "kubelet", Note: n})
}

func (s *script) event(kind history.EventKind, in ops.Input) {
	s.seq++
	s.o.Observe(s.v, &history.Event{Seq: s.seq, Kind: kind, Goroutine: "worker/a", Input: in})
}

func running() oracle.Answers { return oracle.Answers{Known: true, CouldHaveRunning: true} }

func terminated(finished bool) oracle.Answers {
	return oracle.Answers{Known: true, KnownTerminated: true, TerminationRequested: true,
		ContainersBeTerminating: true, RuntimeBeRemoved: true, BeFinished: finished}
}

// shutdownFn is the node shutdown kill's status function: Failed unless
// the pod Succeeded; keepsPhase is B4's, which leaves the phase alone.
func shutdownFn(s *v1.PodStatus) {
	if s.Phase != v1.PodSucceeded {
		s.Phase = v1.PodFailed
	}
}

func keepsPhase(*v1.PodStatus) {}

// TestCatches plants each kind of kubelet-level violation and wants it
// reported; its twin (the same notes on a correct state) must report
// nothing.
func TestCatches(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		plant      func(s *script, bad bool)
	}{
		{"K1 counts a rejected pod", "K1", func(s *script, bad bool) {
			s.commit("a", running())
			s.note(history.AdmissionBegins{})
			counted := []types.UID{"a"}
			if bad {
				counted = append(counted, "b")
			}
			s.note(history.Admitted{UID: "c", Counted: counted})
		}},
		{"K1 counts a known-terminated pod", "K1", func(s *script, bad bool) {
			s.commit("a", terminated(false))
			s.note(history.AdmissionBegins{})
			var counted []types.UID
			if bad {
				counted = []types.UID{"a"}
			}
			s.note(history.Admitted{UID: "c", Counted: counted})
		}},
		{"K1 omits a pod that could run", "K1", func(s *script, bad bool) {
			s.commit("a", running())
			s.note(history.AdmissionBegins{})
			var counted []types.UID
			if !bad {
				counted = []types.UID{"a"}
			}
			s.note(history.Admitted{UID: "c", Counted: counted})
		}},
		{"K2 terminal phase while running", "K2", func(s *script, bad bool) {
			a := terminated(false)
			if bad {
				a = running()
			}
			s.commit("a", a)
			s.note(history.PhaseWritten{UID: "a", Phase: v1.PodSucceeded})
		}},
		{"K3 delete before finished", "K3", func(s *script, bad bool) {
			s.commit("a", terminated(!bad))
			s.note(history.DeleteRequested{UID: "a"})
			s.note(history.Removed{UID: "a", By: StatusManager})
		}},
		{"K4 restart of a rejected pod", "K4", func(s *script, bad bool) {
			uid := types.UID("a")
			if bad {
				uid = "b"
			}
			s.note(history.HousekeepingRestart{UID: uid})
		}},
		{"K4 SyncPod of a rejected pod", "K4", func(s *script, bad bool) {
			uid := types.UID("a")
			if bad {
				uid = "b"
			}
			s.note(history.SyncPodBegins{UID: uid})
		}},
		{"K5 SyncPod of a pod added during shutdown", "K5", func(s *script, bad bool) {
			s.v.pods["c"].AddedInShutdown = bad
			s.note(history.SyncPodBegins{UID: "c"})
		}},
		{"K5 status function keeps the phase", "K5", func(s *script, bad bool) {
			fn := shutdownFn
			if bad {
				fn = keepsPhase
			}
			s.note(history.ShutdownKill{UID: "a", StatusFn: fn})
		}},
		{"K5 snapshot pod never killed", "K5", func(s *script, bad bool) {
			s.note(history.ShutdownBegins{Active: []types.UID{"a", "c"}})
			s.note(history.ShutdownKill{UID: "a", StatusFn: shutdownFn})
			if !bad {
				s.note(history.ShutdownKill{UID: "c", StatusFn: shutdownFn})
			}
			s.note(history.ShutdownDone{})
		}},
		{"K5 the next shutdown owes its own kills", "K5", func(s *script, bad bool) {
			// a killed by the first shutdown; after its cancellation, the
			// second's snapshot holds a again (a new object of its UID).
			s.note(history.ShutdownBegins{Active: []types.UID{"a"}})
			s.note(history.ShutdownKill{UID: "a", StatusFn: shutdownFn})
			s.note(history.ShutdownDone{})
			s.note(history.ShutdownCancelled{})
			s.note(history.ShutdownBegins{Active: []types.UID{"a"}})
			if !bad {
				s.note(history.ShutdownKill{UID: "a", StatusFn: shutdownFn})
			}
			s.note(history.ShutdownDone{})
		}},
		{"K6 removal of an object nobody deleted", "K6", func(s *script, bad bool) {
			s.commit("a", terminated(true))
			if !bad {
				s.note(history.DeleteRequested{UID: "a"})
			}
			s.note(history.Removed{UID: "a", By: StatusManager})
		}},
		{"K6 forced delete before the grace expired", "K6", func(s *script, bad bool) {
			s.note(history.DeleteRequested{UID: "a", Grace: 30})
			at := 31 * time.Second
			if bad {
				at = 29 * time.Second
			}
			s.o.Observe(s.v, &history.Event{Seq: s.seq, At: at, Kind: history.Noted, Goroutine: "reaper",
				Note: history.Removed{UID: "a", By: "grace reaper", Forced: true}})
		}},
		{"K6 delete requested for an older object under the UID", "K6", func(s *script, bad bool) {
			s.commit("a", terminated(true))
			s.note(history.DeleteRequested{UID: "a"})
			if bad {
				s.v.pods["a"].Incarnation = 9 // re-created since
			}
			s.note(history.Removed{UID: "a", By: StatusManager})
		}},
		{"L7 deleted pod left in the API", "L7", func(s *script, bad bool) {
			s.v.pods["a"].Deleted = true
			s.v.pods["a"].InAPI = bad
			s.note(history.KubeletSettled{})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, bad := range []bool{false, true} {
				s := &script{o: New(), v: newFakeView()}
				tc.plant(s, bad)
				var got []string
				for _, v := range s.o.Finish(s.v, nil) {
					got = append(got, v.Invariant+": "+v.Message)
				}
				switch {
				case bad && (len(got) != 1 || !strings.HasPrefix(got[0], tc.want+":")):
					t.Errorf("planted: got %q, want one %s violation", got, tc.want)
				case !bad && len(got) > 0:
					t.Errorf("correct state: got %q, want none", got)
				}
			}
		})
	}
}

// TestK3AcceptsTerminatePodWindow: the delete may come between
// SyncTerminatedPod's success and the pod workers' commit of "finished";
// a new incarnation's SyncPod closes that window.
func TestK3AcceptsTerminatePodWindow(t *testing.T) {
	s := &script{o: New(), v: newFakeView()}
	s.commit("a", terminated(false))
	s.note(history.DeleteRequested{UID: "a"})
	s.event(history.CallbackBegin, ops.SyncBegin{UID: "a", Fn: ops.SyncTerminatedPod})
	s.event(history.CallbackEnd, ops.SyncEnd{UID: "a", Fn: ops.SyncTerminatedPod, Outcome: ops.OK})
	s.note(history.Removed{UID: "a", By: StatusManager})
	if got := s.o.Finish(s.v, nil); len(got) > 0 {
		t.Fatalf("got %v, want none", got)
	}
	s.event(history.CallbackBegin, ops.SyncBegin{UID: "a", Fn: ops.SyncPod}) // a new incarnation: the window closed
	s.note(history.Removed{UID: "a", By: StatusManager})
	if got := s.o.Finish(s.v, nil); len(got) != 1 || got[0].Invariant != "K3" {
		t.Fatalf("got %v, want one K3", got)
	}
}

// TestRestartForgetsTheKubeletNotTheAPIServer: a kubelet restart starts
// the kubelet's checks afresh (a shutdown snapshot of the old process owes
// nothing), while the API server's record of delete requests survives it.
func TestRestartForgetsTheKubeletNotTheAPIServer(t *testing.T) {
	s := &script{o: New(), v: newFakeView()}
	s.note(history.ShutdownBegins{Active: []types.UID{"a"}})
	s.note(history.DeleteRequested{UID: "a"})
	s.o.Observe(s.v, &history.Event{Seq: s.seq, Kind: history.Restarted})
	s.note(history.ShutdownDone{})
	s.commit("a", terminated(true))
	s.note(history.Removed{UID: "a", By: StatusManager})
	if got := s.o.Finish(s.v, nil); len(got) > 0 {
		t.Fatalf("got %v, want none", got)
	}
}

// TestNoKubeletNoChecks: a target without a kubelet is not judged.
func TestNoKubeletNoChecks(t *testing.T) {
	o := New()
	o.Observe(noKubelet{newFakeView()}, &history.Event{Kind: history.Noted, Note: history.SyncPodBegins{UID: "b"}})
	if got := o.Finish(nil, nil); len(got) > 0 {
		t.Fatalf("got %v, want none", got)
	}
}

type noKubelet struct{ *fakeView }

func (noKubelet) Kubelet() oracle.Kubelet { return nil }
