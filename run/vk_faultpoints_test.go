package run

import (
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/oracle"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
	"github.com/podsim/podsim/vkworld"
)

// vkFaultPointSeeds is how many seeds per VK family the fault-point tests
// run.
const vkFaultPointSeeds = 60

// TestVKFaultPointsKeepCorrectCodeCorrect: with the fault points armed,
// every VK family's seeds pass on the correct code under the random walk
// and PCT, and every point fires in some run (its event is in the trace),
// so the check is not vacuous.
func TestVKFaultPointsKeepCorrectCodeCorrect(t *testing.T) {
	fired := map[string]int{}
	on := 0
	for _, f := range plan.VKFamilies() {
		for _, st := range []sim.Strategy{sim.RandomWalk{}, sim.PCT{Depth: 3, Steps: 2000}} {
			for seed := range uint64(vkFaultPointSeeds) {
				rp := ReplaySeed(f, seed, st, CheckOptions{FaultPoints: true})
				if rp.Failed() {
					t.Errorf("%s seed %d (%v) with fault points %v: %v", f.Name, seed, st, rp.FaultPoints, rp.Result)
				}
				if !rp.FaultPointsArmed {
					t.Fatalf("%s seed %d: the result does not say the points were armed", f.Name, seed)
				}
				if len(rp.FaultPoints) > 0 {
					on++
				}
				for _, p := range vkworld.FaultPoints() {
					if strings.Contains(rp.Trace, "faultpoint/"+p.String()+"/") {
						if !slices.Contains(rp.FaultPoints, p.String()) {
							t.Errorf("%s seed %d: %s fired but is not on (%v)", f.Name, seed, p, rp.FaultPoints)
						}
						fired[p.String()]++
					}
				}
			}
		}
	}
	t.Logf("runs with a point on: %d of %d; runs where each fired: %v", on, 2*vkFaultPointSeeds*len(plan.VKFamilies()), fired)
	for _, p := range vkworld.FaultPoints() {
		if fired[p.String()] == 0 {
			t.Errorf("fault point %s fired in no run", p)
		}
	}
}

// calmFaults is a VK fault stream: its first draws are first (the fault
// plan), then every flat-rate fault draw (of 1000) answers "no fault", and
// every other draw (an informer lag) its largest value when lagTop, else 0.
type calmFaults struct {
	first  []int
	lagTop bool
}

func (c *calmFaults) Intn(n int) int {
	if len(c.first) > 0 {
		v := c.first[0] % n
		c.first = c.first[1:]
		return v
	}
	if n == 1000 || c.lagTop {
		return n - 1
	}
	return 0
}

// vkNotes records a run's VK notes, in order.
type vkNotes struct{ notes []history.Note }

func (n *vkNotes) Observe(_ oracle.View, ev *history.Event) {
	if ev.Kind == history.Noted {
		n.notes = append(n.notes, ev.Note)
	}
}

func (n *vkNotes) Finish(oracle.View, error) []history.Violation { return nil }

// index is the position of the first note match accepts, or -1.
func (n *vkNotes) index(match func(history.Note) bool) int { return slices.IndexFunc(n.notes, match) }

// vkPointResult runs plan p on the VK world with the fault points armed
// (and mutant, if any), the schedule always choosing 0, and a calm fault
// stream whose fault plan switches on point alone when on, none otherwise:
// the result, the notes, and whether the trace shows point firing on the
// call and UID of want.
func vkPointResult(p plan.Plan, point vkworld.FaultPoint, on, lagTop bool, mutant, want string) (Result, *vkNotes, bool) {
	var first []int
	for _, pt := range vkworld.ApplicablePoints(p) {
		v := 0
		if on && pt == point {
			v = plan.FaultPointOneIn - 1
		}
		first = append(first, v)
	}
	w := vkworld.NewWorld(p, sim.NewReplay(nil), &calmFaults{first: first, lagTop: lagTop}, sim.RandomWalk{})
	notes := &vkNotes{}
	r := Result{Err: w.Reintroduce(mutant)}
	if r.Err == nil {
		r = judgeVK(p.Family, 0, w, CheckOptions{FaultPoints: true, Mutant: mutant}, []oracle.Oracle{notes})
	}
	return r, notes, strings.Contains(w.S.Trace(), "faultpoint/"+point.String()+"/"+want)
}

// vkPointRun is vkPointResult on the correct code, which must pass with
// exactly point on (when on) or none.
func vkPointRun(t *testing.T, p plan.Plan, point vkworld.FaultPoint, on, lagTop bool, want string) (Result, *vkNotes, bool) {
	t.Helper()
	r, notes, fired := vkPointResult(p, point, on, lagTop, "", want)
	var names []string
	if on {
		names = []string{point.String()}
	}
	if r.Failed() || !slices.Equal(r.FaultPoints, names) {
		t.Fatalf("%s on=%v: failed=%v (%v), points on %v", point, on, r.Failed(), r, r.FaultPoints)
	}
	return r, notes, fired
}

// vkPlan is a VK plan of family "fp" with the given faults, informer lag
// and actions (the controller starts at 0). It lasts until 10 s, and the
// faults with it (a second vk-start does nothing).
func vkPlan(f plan.Faults, lag time.Duration, actions ...plan.Action) plan.Plan {
	actions = append([]plan.Action{{Kind: plan.VKStart, Grace: -1}}, actions...)
	return plan.Plan{Family: "fp", Clients: 1, Faults: f, VK: &plan.VK{Workers: 1, InformerLag: lag},
		Actions: append(actions, plan.Action{At: 10 * time.Second, Kind: plan.VKStart, Grace: -1})}
}

func vkCreate(at time.Duration, uid types.UID, name string) plan.Action {
	return plan.Action{At: at, Kind: plan.VKCreate, UID: uid, Name: name, Grace: -1}
}

func vkDelete(at time.Duration, uid types.UID, name string, grace int64) plan.Action {
	return plan.Action{At: at, Kind: plan.VKDelete, UID: uid, Name: name, Grace: grace}
}

func vkStatus(at time.Duration, uid types.UID, phase string) plan.Action {
	return plan.Action{At: at, Kind: plan.VKStatus, UID: uid, Terminal: phase, Grace: -1}
}

func providerCreated(uid types.UID) func(history.Note) bool {
	return func(n history.Note) bool { c, ok := n.(history.VKProviderCreated); return ok && c.UID == uid }
}

func deleteRequested(uid types.UID) func(history.Note) bool {
	return func(n history.Note) bool { c, ok := n.(history.VKDeleteRequested); return ok && c.UID == uid }
}

// TestSlowCreateUnderDeleteLandsTheDeleteDuringCreatePod: pod a created at
// 100 ms and deleted at 400 ms. Off, the provider creates it at once,
// before the delete; on, its CreatePod is in flight until just after the
// delete: the delete request comes before the provider's create, and the
// run passes (the controller still deletes it in the provider).
func TestSlowCreateUnderDeleteLandsTheDeleteDuringCreatePod(t *testing.T) {
	p := vkPlan(plan.Faults{SlowRate: 300, MaxDelay: time.Second}, 0,
		vkCreate(100*time.Millisecond, "a", "pod-a"), vkDelete(400*time.Millisecond, "a", "pod-a", 30))
	for _, on := range []bool{false, true} {
		_, notes, fired := vkPointRun(t, p, vkworld.SlowCreateUnderDelete, on, false, "create/a")
		created, deleted := notes.index(providerCreated("a")), notes.index(deleteRequested("a"))
		if fired != on || created < 0 || deleted < 0 || (deleted < created) != on {
			t.Fatalf("point on=%v: fired=%v, provider create at note %d, delete request at note %d", on, fired, created, deleted)
		}
	}
}

// TestSlowDeleteUnderRecreateLandsTheRecreateDuringDeletePod: web (a) is
// force-deleted at 2 s and web (b) created at 2.5 s. Off, the provider
// deletes a at once, before b's create; on, a's DeletePod is in flight
// until just after b is created under the name, and the run passes.
func TestSlowDeleteUnderRecreateLandsTheRecreateDuringDeletePod(t *testing.T) {
	p := vkPlan(plan.Faults{SlowRate: 300, MaxDelay: time.Second}, 0,
		vkCreate(0, "a", "web"), vkDelete(2*time.Second, "a", "web", 0), vkCreate(2500*time.Millisecond, "b", "web"))
	for _, on := range []bool{false, true} {
		_, notes, fired := vkPointRun(t, p, vkworld.SlowDeleteUnderRecreate, on, false, "delete/a")
		deleted := notes.index(func(n history.Note) bool { c, ok := n.(history.VKProviderDeleted); return ok && c.UID == "a" })
		recreated := notes.index(func(n history.Note) bool { c, ok := n.(history.VKCreated); return ok && c.UID == "b" })
		if fired != on || deleted < 0 || recreated < 0 || (recreated < deleted) != on {
			t.Fatalf("point on=%v: fired=%v, provider delete of a at note %d, b created at note %d", on, fired, deleted, recreated)
		}
	}
}

// TestLateEventUnderDeleteDeliversTheAddAfterTheDelete: pod a created at
// 200 ms and deleted at 600 ms, informer lag up to 1 s (the calm stream draws
// no lag). Off, the add reaches the controller at once and the provider
// creates a before the delete; on, the add is delivered at 1.2 s, after the
// delete landed in the API, and the deletion right behind it: the
// controller first meets a pod already deleted and never creates it in the
// provider, and the run passes.
func TestLateEventUnderDeleteDeliversTheAddAfterTheDelete(t *testing.T) {
	p := vkPlan(plan.Faults{}, time.Second, vkCreate(200*time.Millisecond, "a", "pod-a"),
		vkDelete(600*time.Millisecond, "a", "pod-a", 30))
	for _, on := range []bool{false, true} {
		_, notes, fired := vkPointRun(t, p, vkworld.LateEventUnderDelete, on, false, "event-added/a")
		created, deleted := notes.index(providerCreated("a")), notes.index(deleteRequested("a"))
		if fired != on || deleted < 0 || on && created >= 0 || !on && (created < 0 || created > deleted) {
			t.Fatalf("point on=%v: fired=%v, provider create at note %d, delete request at note %d", on, fired, created, deleted)
		}
	}
}

// TestSlowGetPodsUnderCreateCreatesWhileTheControllerListsTheProvider:
// the controller starts at 0 and pod a is created at 200 ms (slow calls up
// to 1 s, informer lag up to 500 ms; the calm stream draws none). Off, the
// controller's start-up list of the provider's pods returns at once and it
// is Ready before the create; on, the list is in flight until a's event
// reached the informer: a is created before the controller is Ready, the
// correct code passes, and V10 (handlers added only after that list,
// without replay) loses a, caught by VK6 — off, V10 passes the same plan.
func TestSlowGetPodsUnderCreateCreatesWhileTheControllerListsTheProvider(t *testing.T) {
	p := vkPlan(plan.Faults{SlowRate: 300, MaxDelay: time.Second}, 500*time.Millisecond, vkCreate(200*time.Millisecond, "a", "pod-a"))
	for _, on := range []bool{false, true} {
		_, notes, fired := vkPointRun(t, p, vkworld.SlowGetPodsUnderCreate, on, false, "list/a")
		created := notes.index(func(n history.Note) bool { c, ok := n.(history.VKCreated); return ok && c.UID == "a" })
		ready := notes.index(func(n history.Note) bool { _, ok := n.(history.VKReady); return ok })
		if fired != on || created < 0 || ready < 0 || (created < ready) != on {
			t.Fatalf("point on=%v: fired=%v, a created at note %d, Ready at note %d", on, fired, created, ready)
		}
		r, _, _ := vkPointResult(p, vkworld.SlowGetPodsUnderCreate, on, false, "vk/V10", "list/a")
		if caught := slices.Contains(FailureKeys(r), "vk VK6"); caught != on {
			t.Fatalf("point on=%v: V10 caught by VK6 = %v (%v)", on, caught, r)
		}
	}
}

// statusFailures are the errors of uid's failed status writes, in order.
func (n *vkNotes) statusFailures(uid types.UID) []string {
	var errs []string
	for _, note := range n.notes {
		if f, ok := note.(history.VKStatusWriteFailed); ok && f.UID == uid {
			errs = append(errs, f.Err)
		}
	}
	return errs
}

// TestErrorStatusWhileDeletingFailsTheDeletingPodsWrite: pod a runs, then
// at 4 s is deleted (grace 30) and its provider reports it Succeeded at
// once. Off (and with no drawn error), every status write lands; on, the
// first two writes of a's status after its deletion fail with the
// transient error, the next lands, and the run passes.
func TestErrorStatusWhileDeletingFailsTheDeletingPodsWrite(t *testing.T) {
	p := vkPlan(plan.Faults{ErrorRate: 100}, 0, vkCreate(0, "a", "pod-a"), vkStatus(2*time.Second, "a", "Running"),
		vkDelete(4*time.Second, "a", "pod-a", 30), vkStatus(4*time.Second, "a", "Succeeded"))
	for _, on := range []bool{false, true} {
		_, notes, fired := vkPointRun(t, p, vkworld.ErrorStatusWhileDeleting, on, false, "status/a")
		failed := notes.statusFailures("a")
		want := []string(nil)
		if on {
			want = []string{"transient", "transient"}
		}
		if fired != on || !slices.Equal(failed, want) {
			t.Fatalf("point on=%v: fired=%v, a's failed status writes %v, want %v", on, fired, failed, want)
		}
	}
}

// TestErrorStatusRetryFailsTheWriteAfterAConflict: pod a runs; at 4 s
// another writer edits it and the provider reports it Succeeded at once,
// informer lag 500 ms (the calm stream draws the most): the status writes
// meet a stale cache and fail with conflicts until the edit reaches it.
// Off, the next write lands; on, it fails once more with the transient
// error (after conflicts only), the retry lands, and the run passes.
func TestErrorStatusRetryFailsTheWriteAfterAConflict(t *testing.T) {
	p := vkPlan(plan.Faults{ErrorRate: 100}, 500*time.Millisecond, vkCreate(0, "a", "pod-a"),
		vkStatus(2*time.Second, "a", "Running"), plan.Action{At: 4 * time.Second, Kind: plan.VKEdit, UID: "a", Grace: -1},
		vkStatus(4*time.Second, "a", "Succeeded"))
	for _, on := range []bool{false, true} {
		_, notes, fired := vkPointRun(t, p, vkworld.ErrorStatusRetry, on, true, "status/a")
		failed := notes.statusFailures("a")
		conflicts := len(failed) > 0 && !slices.Contains(failed[:len(failed)-1], "transient")
		last := ""
		if len(failed) > 0 {
			last = failed[len(failed)-1]
		}
		if fired != on || !conflicts || (last == "transient") != on {
			t.Fatalf("point on=%v: fired=%v, a's failed status writes %v", on, fired, failed)
		}
	}
}

// TestVKFaultPointsOffByZeroChoices: the VK fault plan is the first draws
// of the fault stream, so a recorded run replays with the same points and
// trace, and setting those choices to 0 — what shrinking lowers a choice
// to — switches the points off (every other choice kept); with no fault
// choices at all none is on either.
func TestVKFaultPointsOffByZeroChoices(t *testing.T) {
	opts := CheckOptions{FaultPoints: true}
	for _, f := range plan.VKFamilies() {
		found := false
		for seed := uint64(0); seed < 40 && !found; seed++ {
			c, r := RecordSeed(f, seed, sim.RandomWalk{}, opts)
			if len(r.FaultPoints) == 0 {
				continue
			}
			found = true
			again := ReplayCase(c, sim.RandomWalk{}, opts)
			if again.TraceSHA != r.TraceSHA || !slices.Equal(again.FaultPoints, r.FaultPoints) {
				t.Fatalf("%s seed %d: the recorded run replays to %v %s, want %v %s", f.Name, seed, again.FaultPoints,
					again.TraceSHA, r.FaultPoints, r.TraceSHA)
			}
			zeroed := c.Clone()
			for i := range min(len(zeroed.Faults), len(vkworld.FaultPoints())) {
				if zeroed.Faults[i] == plan.FaultPointOneIn-1 {
					zeroed.Faults[i] = 0
				}
			}
			if off := ReplayCase(zeroed, sim.RandomWalk{}, opts); len(off.FaultPoints) != 0 {
				t.Fatalf("%s seed %d: with the fault plan's choices at 0, %v are still on", f.Name, seed, off.FaultPoints)
			}
			c.Faults = nil
			if off := ReplayCase(c, sim.RandomWalk{}, opts); len(off.FaultPoints) != 0 {
				t.Fatalf("%s seed %d: zero fault choices still switch on %v", f.Name, seed, off.FaultPoints)
			}
		}
		if !found {
			t.Errorf("%s: no seed of 40 switched a point on", f.Name)
		}
	}
}

// TestVKMutantsCaughtWithFaultPoints: with the fault points armed, every
// VK mutant is still caught from three start seeds within a small budget,
// by the VK oracle's checks the mutant lists.
func TestVKMutantsCaughtWithFaultPoints(t *testing.T) {
	const budget = 150
	for _, m := range vkworld.Mutants() {
		for _, start := range []uint64{0, 1_000_000, 2_000_000} {
			caught := false
			for seed := start; seed < start+budget && !caught; seed++ {
				for _, fam := range m.Families {
					r := RunSeed(vkFamily(t, fam), seed, sim.RandomWalk{}, CheckOptions{Mutant: m.Name, FaultPoints: true})
					if !r.Failed() {
						continue
					}
					keys := FailureKeys(r)
					if !slices.ContainsFunc(m.Invariants, func(inv string) bool { return slices.Contains(keys, "vk "+inv) }) {
						t.Errorf("%s: caught by %q, want the VK oracle's %v", m.Name, keys, m.Invariants)
					}
					caught = true
					break
				}
			}
			if !caught {
				t.Errorf("%s: not caught with the fault points armed in %d seeds from %d", m.Name, budget, start)
			}
		}
	}
}
