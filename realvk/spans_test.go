package realvk

import (
	"context"
	"slices"
	"testing"
	"testing/synctest"

	"github.com/podsim/podsim/realvk/callgate"
	"github.com/podsim/podsim/realvk/script"
)

// stepper applies script lines one at a time in a bubble and lists the
// calls parked after each.
type stepper struct {
	t *testing.T
	d *Driver
}

func (s stepper) apply(line string) {
	s.t.Helper()
	m, err := script.ParseMove(line)
	if err != nil {
		s.t.Fatal(err)
	}
	if !s.d.Apply(m) {
		s.t.Fatalf("move %q could not happen; parked: %v", line, s.parked())
	}
}

func (s stepper) parked() []string {
	var out []string
	for _, c := range s.d.W.gates.Parked() {
		out = append(out, c.Label())
	}
	return out
}

func (s stepper) want(labels ...string) {
	s.t.Helper()
	if got := s.parked(); !slices.Equal(got, labels) {
		s.t.Fatalf("parked %q, want %q", got, labels)
	}
}

// TestDanglingGoroutinesParkByPod: deleteDanglingPods' goroutines park
// before its semaphore, each under its pod's key (read from the
// goroutine's argument), so the seed, not the scheduler, picks which one
// deletes first: here pod-y, spawned second, goes first with one worker;
// pod-x, released while pod-y holds the semaphore, waits for it.
func TestDanglingGoroutinesParkByPod(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := stepper{t: t, d: NewDriver()}
		for _, l := range []string{"workers 1", "vk-provider-pod uid=x", "vk-provider-pod uid=y", "vk-start"} {
			s.apply(l)
		}
		s.want("g1/api.List/-/?")
		s.apply("release g1/api.List/-/? ok")
		s.want("g1/provider.GetPods/-/deleteDanglingPods")
		s.apply("release g1/provider.GetPods/-/deleteDanglingPods ok")
		s.want("g1/dangling/default/pod-x/deleteDanglingPods", "g1/dangling/default/pod-y/deleteDanglingPods")
		s.apply("release g1/dangling/default/pod-y/deleteDanglingPods ok")
		s.want("g1/dangling/default/pod-x/deleteDanglingPods", "g1/provider.DeletePod/default/pod-y/deleteDanglingPods")
		s.apply("release g1/dangling/default/pod-x/deleteDanglingPods ok")
		s.want("g1/provider.DeletePod/default/pod-y/deleteDanglingPods")
		s.apply("release g1/provider.DeletePod/default/pod-y/deleteDanglingPods ok")
		s.want("g1/provider.DeletePod/default/pod-x/deleteDanglingPods")
		s.d.Finish("dangling", 0)
	})
}

// TestQueueHandlersAndPollsPark: a notification for a pod the controller
// does not know yet retries after 151 ms, and the retry parks ("poll",
// numbered by the notify move); once the informer's add ran and the
// retry is released, the status queue's worker parks before its handler
// ("handler", with the queue's name), as does the sync queue's.
func TestQueueHandlersAndPollsPark(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := stepper{t: t, d: NewDriver()}
		for _, l := range []string{"vk-create uid=a", "vk-start", "release g1/api.List/-/? ok",
			"release g1/provider.GetPods/-/deleteDanglingPods ok", "vk-provider-pod uid=a", "vk-status uid=a phase=Running",
			"notify default/pod-a", "sleep"} {
			s.apply(l)
		}
		s.want("g1/poll/default/pod-a/notify1")
		s.apply("event")
		s.want("g1/handler/default/pod-a/syncPodsFromKubernetes", "g1/poll/default/pod-a/notify1")
		s.apply("release g1/poll/default/pod-a/notify1 ok")
		s.want("g1/handler/default/pod-a/syncPodStatusFromProvider", "g1/handler/default/pod-a/syncPodsFromKubernetes")
		s.apply("release g1/handler/default/pod-a/syncPodStatusFromProvider ok")
		s.want("g1/api.UpdateStatus/default/pod-a/updatePodStatus", "g1/handler/default/pod-a/syncPodsFromKubernetes")
		s.d.Finish("handlers", 0)
	})
}

// TestDuplicateLabelsReported: two calls parked under one label are a
// harness fault (a release would pick one by arrival order) and become a
// "harness" finding; distinct labels are not.
func TestDuplicateLabelsReported(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := &callgate.Gates{}
		for _, key := range []string{"default/a", "default/b", "default/a"} {
			go g.Park(&callgate.Call{Gen: 1, Op: "provider.GetPod", Key: key, Caller: "createOrUpdatePod", Ctx: context.Background()})
			synctest.Wait()
		}
		if got := g.TakeDups(); !slices.Equal(got, []string{"g1/provider.GetPod/default/a/createOrUpdatePod"}) {
			t.Errorf("duplicates %q, want the one repeated label", got)
		}
		g.Kill(1)
	})
	var r Result
	synctest.Test(t, func(t *testing.T) {
		d := NewDriver()
		go d.W.gates.Park(&callgate.Call{Gen: 1, Op: "api.Get", Key: "default/a", Caller: "x", Ctx: context.Background()})
		go d.W.gates.Park(&callgate.Call{Gen: 1, Op: "api.Get", Key: "default/a", Caller: "x", Ctx: context.Background()})
		synctest.Wait()
		d.afterStep()
		d.W.gates.Kill(1)
		r = Result{Findings: d.findings}
	})
	if len(r.Findings) != 1 || r.Findings[0].Check != "harness" || r.Findings[0].Class != "" {
		t.Errorf("findings %v, want one unexplained harness finding", r.Findings)
	}
}

// TestNotifyBeforeSyncEnds: a notification for a pod the informer never
// lists (its list stays parked) gives up after its 3 s; the error it
// reports must not put its goroutine to sleep past the end of the run
// (apimachinery's global error rate limiter did: TestMain empties it), or
// the bubble would end with that goroutine still blocked and
// synctest.Test would fail.
func TestNotifyBeforeSyncEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := stepper{t: t, d: NewDriver()}
		for _, l := range []string{"vk-create uid=a", "vk-start", "vk-provider-pod uid=a", "vk-status uid=a phase=Running",
			"notify default/pod-a", "sleep", "sleep", "sleep", "sleep"} {
			s.apply(l)
		}
		s.want("g1/api.List/-/?")
		s.d.Finish("notify-before-sync", 0)
	})
}
