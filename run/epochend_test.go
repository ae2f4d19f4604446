package run

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/oracle"
	"github.com/podsim/podsim/oracle/latency"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
	"github.com/podsim/podsim/world"
)

// eventTape keeps a copy of every event of a run.
type eventTape struct{ evs []history.Event }

func (t *eventTape) Observe(_ oracle.View, ev *history.Event)    { t.evs = append(t.evs, *ev) }
func (*eventTape) Finish(oracle.View, error) []history.Violation { return nil }

// noKinds is an oracle that reads no event: a timing slot left empty.
type noKinds struct{}

func (noKinds) Observe(oracle.View, *history.Event)           {}
func (noKinds) Finish(oracle.View, error) []history.Violation { return nil }
func (noKinds) Kinds() oracle.Kinds                           { return 0 }

// epochEndDiffer replays the events of seed of f (under mutant) twice into
// kill-latency oracles, one per kubelet process: handed every event and an
// ended epoch finished with a plain oracle.ErrEpochEnded (the oracle's
// own last event: how realkubelet's tape judges), and through a handout,
// as judgeOn hands them out (only the oracle's kinds; an ended epoch
// finished with the oracle.EpochEnd the handout took). It returns where
// the two differ ("" if nowhere), the restarts and the violations found.
func epochEndDiffer(f plan.Family, seed uint64, mutant string) (string, int, int) {
	st := plan.SeedStreams(seed)
	w := world.NewWorld(f.Generate(st.Plan), st.Schedule, st.Faults, sim.RandomWalk{})
	if err := reintroduce(w, mutant); err != nil {
		return err.Error(), 0, 0
	}
	tape := &eventTape{}
	judge(f, seed, w, CheckOptions{Mutant: mutant}, []oracle.Oracle{tape})
	view := w.View()
	var want []history.Violation
	all, restarts := latency.New(), 0
	for i := range tape.evs {
		if tape.evs[i].Kind == history.Restarted {
			want = append(want, all.Finish(view, oracle.ErrEpochEnded)...)
			all, restarts = latency.New(), restarts+1
			continue
		}
		all.Observe(view, &tape.evs[i])
	}
	want = append(want, all.Finish(view, nil)...)
	var fo fanout
	obs := &observers{epochs: newEpochOracles(func() []oracle.Oracle { return []oracle.Oracle{latency.New()} }),
		marks: history.NewMarker(), timing: [5]oracle.Oracle{noKinds{}, noKinds{}, noKinds{}, noKinds{}, noKinds{}}}
	fo.setFrom(obs)
	deliver := fo.handOut(handout{fo: &fo, obs: obs, view: view})
	for i := range tape.evs {
		deliver(&tape.evs[i])
	}
	got := obs.epochs.Finish(view, nil)
	if !slices.Equal(got, want) {
		return fmt.Sprintf("through the handout %v, handed every event %v", got, want), restarts, len(want)
	}
	return "", restarts, len(want)
}

// TestEpochEndIsTheLastEvent: the kill-latency oracle, handed only its
// kinds (oracle.KindFilter) and finished at a restart with the time the
// handout took (oracle.EpochEnd), finds what it finds handed every event
// and finished with a plain ErrEpochEnded, in every family the world runs
// with and without the B16 fault (SyncPods that outlive a restart). It
// fails when the handout's time is not the epoch's last event's (the
// restart's own, or one of the next epoch), or when the oracle reads it not.
func TestEpochEndIsTheLastEvent(t *testing.T) {
	restarts, found := 0, 0
	for _, f := range plan.Families() {
		if f.Generate(plan.SeedStreams(0).Plan).VK != nil {
			continue
		}
		for _, mutant := range []string{"", "B16"} {
			for seed := range uint64(2) {
				diff, r, n := epochEndDiffer(f, seed, mutant)
				if diff != "" {
					t.Fatalf("%s seed %d mutant %q: %s", f.Name, seed, mutant, diff)
				}
				restarts, found = restarts+r, found+n
			}
		}
	}
	if restarts == 0 {
		t.Fatal("no run restarted its kubelet: nothing was compared")
	}
	t.Logf("%d restarts, %d kill-latency violations, the same", restarts, found)
}

// TestHandoutEpochEnd: a SyncPod cancelled at 1 s is still running when
// the kubelet restarts at 40 s; the epoch's last event is a lock at 20 s,
// then a note at 30 s. Handed out by judgeOn's handout, the kill-latency
// oracle judges it at 20 s: it went on 19 s after its cancellation. It
// fails when the handout takes the restart's time (39 s), a note's (29 s)
// or none (the oracle's own last event, the cancellation: no violation).
func TestHandoutEpochEnd(t *testing.T) {
	s := time.Second
	evs := []history.Event{
		{Seq: 1, Kind: history.CallbackBegin, Goroutine: "worker/a", Input: ops.SyncBegin{UID: "a", Fn: ops.SyncPod}},
		{Seq: 2, Kind: history.Fired, At: s, Input: ops.CancelFired{UID: "a"}},
		{Seq: 3, Kind: history.LockAcquired, At: 20 * s, Goroutine: "client/0"},
		{Seq: 3, Kind: history.Noted, At: 30 * s},
		{Seq: 4, Kind: history.Restarted, At: 40 * s},
		{Seq: 5, Kind: history.LockAcquired, At: 50 * s, Goroutine: "client/0"},
	}
	var fo fanout
	obs := &observers{epochs: newEpochOracles(func() []oracle.Oracle { return []oracle.Oracle{latency.New()} }),
		marks: history.NewMarker(), timing: [5]oracle.Oracle{noKinds{}, noKinds{}, noKinds{}, noKinds{}, noKinds{}}}
	fo.setFrom(obs)
	deliver := fo.handOut(handout{fo: &fo, obs: obs, view: fixedView{}})
	for i := range evs {
		deliver(&evs[i])
	}
	got := obs.epochs.Finish(fixedView{}, nil)
	if len(got) != 1 || !strings.Contains(got[0].Message, "went on for 19s after its cancellation at 1s") {
		t.Fatalf("violations %v, want one: SyncPod went on for 19s after its cancellation at 1s", got)
	}
}

// fixedView is a View at one hour, with nothing else.
type fixedView struct{}

func (fixedView) Settle() *oracle.Settle            { return nil }
func (fixedView) Config(types.UID) oracle.PodConfig { return oracle.PodConfig{} }
func (fixedView) Kubelet() oracle.Kubelet           { return nil }
func (fixedView) Elapsed() time.Duration            { return time.Hour }

// TestLaneEpochsBeginAfresh: a lane's next run begins its epochs with no
// past epoch and no last-event time of the run before (restart files the
// current epoch under it). It fails when the lane keeps the old time.
func TestLaneEpochsBeginAfresh(t *testing.T) {
	l := &Lane{}
	e := l.epochOracles(CheckOptions{}, nil)
	e.lastAt = 7 * time.Second
	e.restart()
	e.lastAt = 9 * time.Second
	if e = l.epochOracles(CheckOptions{}, nil); e.lastAt != 0 || len(e.past) != 0 {
		t.Fatalf("the next run's epochs begin at %v with %d past epochs, want 0 and none", e.lastAt, len(e.past))
	}
	e.restart()
	if e.past[0].end != 0 {
		t.Fatalf("an epoch with no event ended at %v, want 0", e.past[0].end)
	}
}
