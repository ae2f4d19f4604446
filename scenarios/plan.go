package scenarios

import (
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// ActionKind is what a client of the pod workers does.
type ActionKind uint8

const (
	// Create: a config ADD (UpdatePod create).
	Create ActionKind = iota
	// Update: a config UPDATE (UpdatePod update) with a new pod version.
	Update
	// Sync: a re-sync (UpdatePod sync), as PLEG or the work queue sends.
	Sync
	// Delete: a graceful API delete (update with a deletion timestamp).
	Delete
	// Remove: the pod left config (REMOVE, UpdatePod kill).
	Remove
	// Kill: a kill with options (eviction, preemption, shutdown).
	Kill
	// KillNow: KillPodNow, which waits for termination or a timeout.
	KillNow
	// RuntimeKill: housekeeping's kill of a runtime-only pod (grace 1).
	RuntimeKill
	// Finish: the pod's containers exit by themselves (terminal phase).
	Finish
	// SyncKnown: housekeeping's SyncKnownPods with the desired pods.
	SyncKnown
	// Query: every query method, read by a subsystem.
	Query
	// Vanish: the pod left config while not every config source was ready,
	// so the kubelet refused the REMOVE's kill (SPEC §2, deletePod): only
	// housekeeping's SyncKnownPods can notice (B11).
	Vanish
)

var actionNames = [...]string{"create", "update", "sync", "delete", "remove", "kill", "kill-now",
	"runtime-kill", "finish", "sync-known", "query", "vanish"}

func (k ActionKind) String() string { return actionNames[k] }

// Action is one step of a plan: data, so that a plan can be printed,
// replayed and shrunk.
type Action struct {
	At     time.Duration // virtual time the client issues it
	Client int           // which client goroutine issues it
	Kind   ActionKind
	UID    types.UID
	// Pod shape (Create/Update/...): a static pod uses Name as its shared
	// full name; SpecGrace is terminationGracePeriodSeconds.
	Static    bool
	Name      string
	SpecGrace int64
	// Deletion grace (Delete) and kill options (Kill, KillNow).
	Grace    int64 // -1: none
	Evict    bool
	Terminal string // Finish: "Succeeded" or "Failed"
}

func (a Action) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v client/%d %s", a.At, a.Client, a.Kind)
	if a.UID != "" {
		fmt.Fprintf(&b, " uid=%s", a.UID)
	}
	if a.Static {
		fmt.Fprintf(&b, " static name=%s", a.Name)
	}
	if a.Grace >= 0 && (a.Kind == Delete || a.Kind == Kill || a.Kind == KillNow) {
		fmt.Fprintf(&b, " grace=%d", a.Grace)
	}
	if a.Evict {
		b.WriteString(" evict")
	}
	if a.Kind == Finish {
		fmt.Fprintf(&b, " phase=%s", a.Terminal)
	}
	return b.String()
}

// Plan is a scenario's list of actions, in time order, and the knobs of the
// world that runs it.
type Plan struct {
	Family  string
	Actions []Action
	Faults  Faults
	// Clients is the number of client goroutines issuing actions.
	Clients int
}

func (p Plan) String() string {
	lines := []string{fmt.Sprintf("plan %s: %d actions, %d clients", p.Family, len(p.Actions), p.Clients)}
	for _, a := range p.Actions {
		lines = append(lines, "  "+a.String())
	}
	return strings.Join(lines, "\n")
}
