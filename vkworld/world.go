// Package vkworld is the simulated virtual-kubelet pod controller: an API
// server model, a pod informer with lag and an initial list, a controller
// shaped like virtual-kubelet's PodController (its pod-tracking map, its
// three work queues, deleteDanglingPods, the NotifyPods callback, Ready,
// Done and Err), and a fake provider with faults, all running as simulated
// goroutines under sim, driven by a plan.VK plan. Entries of
// virtual-kubelet's bug history can be switched back on (Mutants).
//
// It records what happens as the VK notes of package history
// (history/notes_vk.go) and knows no oracle: oracle/vk judges it, as it
// judges the real PodController.
package vkworld

import (
	"fmt"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/oracle"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/sim"
)

// Bounds of a run's end: the world runs at least SettleMin past the last
// action (beyond every deletion grace) and until the controller is idle,
// at most SettleMax.
const (
	SettleMin = 35 * time.Second
	SettleMax = 30 * time.Minute
	MaxSteps  = 500_000
)

// World runs one plan.VK plan.
type World struct {
	S      *sim.Scheduler
	plan   plan.Plan
	faults sim.Source

	api  *apiServer
	prov *provider
	ctrl *controller

	epoch     int
	healed    bool
	faultSeen bool // a fault was injected
	bugs      map[string]bool
	marks     map[string]bool
	graceEnds map[string]time.Duration // by name: when the last deleted object's grace ends

	crash     *sim.PanicError // the first controller crash (crash.go)
	points    *faultPoints    // nil: no fault points (FaultPointsOn)
	observers []func(history.Event)
	seq       int64
	settled   bool
}

// NewWorld builds the world for p (p.VK must be set) under the schedule and
// fault streams.
func NewWorld(p plan.Plan, schedule, faults sim.Source, strategy sim.Strategy) *World {
	if p.VK == nil {
		panic("vkworld: a plan without VK")
	}
	w := &World{S: sim.New(sim.Options{Source: schedule, Strategy: strategy, MaxSteps: MaxSteps}), plan: p, faults: faults,
		bugs: map[string]bool{}, marks: map[string]bool{}, graceEnds: map[string]time.Duration{}}
	w.api = &apiServer{w: w, pods: map[string]*apiPod{}}
	w.prov = &provider{w: w, pods: map[types.UID]*provPod{}}
	return w
}

// Plan is the plan the world runs.
func (w *World) Plan() plan.Plan { return w.plan }

// Observe adds an observer of every event, called as it happens.
func (w *World) Observe(f func(history.Event)) { w.observers = append(w.observers, f) }

// Marks are the coverage marks reached.
func (w *World) Marks() map[string]bool { return w.marks }

func (w *World) mark(m string) { w.marks[m] = true }

func (w *World) bug(name string) bool { return w.bugs[name] }

// note records n as a Noted event.
func (w *World) note(n history.Note) {
	w.seq++
	ev := history.Event{Seq: w.seq, Step: w.S.Steps(), At: w.S.Elapsed(), Goroutine: w.S.Goroutine(), Kind: history.Noted, Note: n}
	for _, o := range w.observers {
		o(ev)
	}
}

// draw is a choice of the fault stream.
func (w *World) draw(n int) int {
	if n <= 1 {
		return 0
	}
	return w.faults.Intn(n)
}

func (w *World) faultsOn() bool {
	return !w.healed && (w.plan.VK.HealAt == 0 || w.S.Elapsed() < w.plan.VK.HealAt)
}

// fault draws whether the call op fails.
func (w *World) fault(op string) bool {
	if !w.faultsOn() || w.plan.Faults.ErrorRate <= 0 || w.draw(1000) >= w.plan.Faults.ErrorRate {
		return false
	}
	w.faultSeen = true
	return true
}

// Run runs the plan, then the settle phase: faults heal, the controller
// (started now if the plan never started it)
// runs until idle, is cancelled and must close Done; the final state is
// recorded (VKSettled). It returns the scheduler's error, if any.
func (w *World) Run() error {
	defer w.S.Close()
	if w.points != nil {
		w.drawPoints() // before anything else draws: the fault stream's first choices
	}
	clientDone := w.S.NewEvent("vk/client/done")
	w.S.Go("vk/client", func() {
		for _, a := range w.plan.Actions {
			if d := a.At - w.S.Elapsed(); d > 0 {
				w.S.Sleep(d)
			}
			w.perform(a)
		}
		clientDone.Fire()
	})
	w.S.Go("vk/driver", func() {
		clientDone.Wait()
		w.settle()
		w.S.End() // Halt, for a goroutine that returns right after
	})
	return w.S.Run()
}

func (w *World) settle() {
	if w.ctrl == nil {
		w.start() // a plan without vk-start (a shrunk one) starts the controller now
	}
	w.healed = true
	start := w.S.Elapsed()
	for quiet := 0; quiet < 2 && w.S.Elapsed() < start+SettleMax; {
		w.S.Sleep(time.Second)
		if w.S.Elapsed() >= start+SettleMin && (w.ctrl == nil || w.ctrl.ready.Fired() && (w.ctrl.idle() || w.ctrl.crashed != "")) {
			quiet++
		} else {
			quiet = 0
		}
	}
	final := history.VKFinal{Queued: 0}
	if w.ctrl != nil {
		final.Queued = w.ctrl.queued()
		w.ctrl.stop()
	}
	final.API, final.Provider = w.api.final(), w.prov.final()
	w.settled = true
	w.note(history.VKSettled{Final: final})
}

// perform does one plan action.
func (w *World) perform(a plan.Action) {
	switch a.Kind {
	case plan.VKCreate:
		if end, ok := w.graceEnds[a.Name]; ok && w.S.Elapsed() < end {
			w.mark(plan.MarkVKRecreatedInGrace)
		}
		if w.api.create(a.UID, a.Name) == nil && w.ctrl != nil && w.ctrl.inf.listing {
			w.mark(plan.MarkVKCreatedDuringList)
		}
	case plan.VKDelete:
		if p := w.api.pods[a.Name]; p != nil && p.uid == a.UID && !p.deleting {
			g := a.Grace
			if g < 0 {
				g = specGrace
			}
			w.graceEnds[a.Name] = w.S.Elapsed() + time.Duration(g)*time.Second
		}
		_ = w.api.delete("client", a.Name, a.Grace, a.UID, 0)
	case plan.VKEdit:
		w.api.edit(a.UID)
	case plan.VKStatus:
		w.prov.setStatus(a.UID, v1.PodPhase(a.Terminal))
	case plan.VKProviderDelete:
		w.prov.providerDelete(a.UID)
	case plan.VKProviderPod:
		w.prov.add(a.UID, w.nameOf(a.UID))
	case plan.VKStart:
		if w.ctrl == nil {
			w.start()
		}
	case plan.VKRestart:
		if w.ctrl != nil {
			if len(w.api.pods) > 0 {
				w.mark(plan.MarkVKRestart)
			}
			w.ctrl.stop()
			w.start()
		}
	default:
		panic(fmt.Sprintf("vkworld: action %v in a VK plan", a.Kind))
	}
}

// nameOf is the name of uid's API object, or pod-<uid>.
func (w *World) nameOf(uid types.UID) string {
	for _, p := range w.api.list() {
		if p.uid == uid {
			return p.name
		}
	}
	return "pod-" + string(uid)
}

func (w *World) start() {
	w.epoch++
	w.ctrl = newController(w, w.epoch)
	w.S.Go(fmtEpoch("vk/run", w.epoch), w.ctrl.run)
}

// View is the oracles' view of the world: a VK target offers none of the
// kubelet's parts (oracle/vk reads the notes alone).
func (w *World) View() oracle.View { return view{w} }

type view struct{ w *World }

func (view) Settle() *oracle.Settle            { return nil }
func (view) Config(types.UID) oracle.PodConfig { return oracle.PodConfig{} }
func (view) Kubelet() oracle.Kubelet           { return nil }
func (v view) Elapsed() time.Duration          { return v.w.S.Elapsed() }

// Mutant is one entry of virtual-kubelet's bug history that the world can
// switch back on.
type Mutant struct {
	Name       string // "vk/V1", ...
	Issue      string
	Families   []string
	Invariants []string // what the oracles report for it
	Mutation   string
}

// Mutants lists the VK catalogue entries the world can re-introduce (V9,
// a leak, has no observable effect on the notes).
func Mutants() []Mutant {
	return []Mutant{
		{"vk/V1", "#836 (fix #851)", []string{"vk-startup"}, []string{"VK2"},
			"NotifyPods drops a status for a pod the controller does not know yet instead of waiting for it"},
		{"vk/V2", "#867 (fix #908)", []string{"vk-delete-recreate", "vk-swarm"}, []string{"VK3"},
			"the delayed forced delete is keyed by name: it deletes whatever pod holds the name when it fires"},
		{"vk/V3", "#783 (fix #784)", []string{"vk-startup"}, []string{"VK4"},
			"a pod already terminating when the controller starts is never synced"},
		{"vk/V4", "#899 (fix #902)", []string{"vk-status-faults", "vk-swarm"}, []string{"VK2"},
			"an unchanged status skipped after another writer edited the object is never written again"},
		{"vk/V5", "#399 (fix #898)", []string{"vk-status-faults", "vk-swarm"}, []string{"VK2"},
			"a failed status write is dropped, and the unchanged status is skipped for ever after"},
		{"vk/V6", "PR #874", []string{"vk-status-faults", "vk-swarm"}, []string{"VK3"},
			"the provider-initiated deletion's time comparison is inverted: the API object is never deleted"},
		{"vk/V7", "#953 (82452a73a)", []string{"vk-status-faults", "vk-swarm"}, []string{"VK8"},
			"one rate limiter shared by the three queues: one queue's Forget resets another's backoff for the same key"},
		{"vk/V8", "#1328 (44fa1bc79)", []string{"vk-delete-recreate", "vk-swarm"}, []string{"VK7"},
			"the status handler dereferences the tracking entry's last provider status without checking it: the controller's process crashes"},
		{"vk/V10", "PR #736", []string{"vk-startup"}, []string{"VK6"},
			"the controller lists the cache, deletes dangling pods, then adds its handlers without replay"},
	}
}

// Reintroduce switches the mutant name on ("" is the correct code).
func (w *World) Reintroduce(name string) error {
	if name == "" {
		return nil
	}
	for _, m := range Mutants() {
		if m.Name == name {
			w.bugs[name[len("vk/"):]] = true
			return nil
		}
	}
	return fmt.Errorf("vkworld: no mutant %q", name)
}

// MutantNamed reports whether name is a VK mutant.
func MutantNamed(name string) bool {
	return slices.ContainsFunc(Mutants(), func(m Mutant) bool { return m.Name == name })
}
