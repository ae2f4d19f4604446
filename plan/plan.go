package plan

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
	// RuntimeKill: housekeeping's kill of a runtime-only pod (grace 1);
	// with a kubelet (Plan.Node), not sent for a pod in config.
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
	// Evict: the eviction manager evicts the pod (KillPodNow with
	// evict=true, then waits for its cleanup); a no-op unless the pod is
	// active and neither static nor critical (eviction.go).
	Evict
	// Shutdown: the node shutdown manager starts a graceful shutdown:
	// admission closes, the active pods are killed by priority group
	// (shutdown.go).
	Shutdown
	// Restart: the kubelet restarts: the pod workers' state is dropped, the
	// pods in config are added again, the runtime keeps running (restart.go).
	Restart

	// The virtual-kubelet pod controller's actions (Plan.VK, vk.go).
	VKCreate
	VKDelete
	VKEdit
	VKStatus
	VKProviderDelete
	VKProviderPod
	VKStart
	VKRestart

	// ShutdownCancel: logind withdraws the node shutdown
	// (PrepareForShutdown(false)). The node shutdown manager's one event
	// loop reads it once the shutdown's processing ended, and reopens
	// admission; a no-op when no shutdown is in force (shutdown.go). Last,
	// so that the kinds before it keep their values.
	ShutdownCancel
)

var actionNames = [...]string{"create", "update", "sync", "delete", "remove", "kill", "kill-now",
	"runtime-kill", "finish", "sync-known", "query", "vanish", "evict", "shutdown", "restart",
	"vk-create", "vk-delete", "vk-edit", "vk-status", "vk-provider-delete", "vk-provider-pod", "vk-start", "vk-restart",
	"shutdown-cancel"}

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
	// Resource requests and priority (Create): what admission counts and
	// the node shutdown manager groups by. Priority ≥ CriticalPriority is
	// critical (never evicted).
	CPU, Mem int64
	Priority int32
	// Target (Update, Sync, Kill): what the UpdatePod carries besides the
	// kind: "" the pod (the default), TargetRunningPod the runtime's view
	// of it only, TargetBoth the pod and its runtime view (the pod wins,
	// SPEC §1.4 step 1). Pending (Create): the pod object's phase is Pending
	// instead of Running.
	Target  string
	Pending bool
	// KillOpts (Create, Update, Sync; api-shapes only): the update also
	// carries kill options — a completion Event, the Grace override if
	// Grace ≥ 0, and Evict — a shape the kubelet never sends but the
	// pod-worker API admits (the options of a non-kill update settle at
	// once or wait for a termination in progress).
	KillOpts bool
}

// Targets of an UpdatePod besides the pod (Action.Target).
const (
	TargetRunningPod = "running-pod"
	TargetBoth       = "both"
)

func (a Action) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v client/%d %s", a.At, a.Client, a.Kind)
	if a.UID != "" {
		fmt.Fprintf(&b, " uid=%s", a.UID)
	}
	switch {
	case a.Static:
		fmt.Fprintf(&b, " static name=%s", a.Name)
	case a.Name != "":
		fmt.Fprintf(&b, " name=%s", a.Name) // the API object's name (World.podOf)
	}
	if a.Kind == Create && (a.CPU != 0 || a.Mem != 0 || a.Priority != 0) {
		fmt.Fprintf(&b, " cpu=%d mem=%d prio=%d", a.CPU, a.Mem, a.Priority)
	}
	if a.KillOpts {
		b.WriteString(" killopts")
	}
	if a.Grace >= 0 && (a.Kind == Delete || a.Kind == VKDelete || a.Kind == Kill || a.Kind == KillNow || a.Kind == Evict || a.KillOpts) {
		fmt.Fprintf(&b, " grace=%d", a.Grace)
	}
	if a.Evict {
		b.WriteString(" evict")
	}
	if a.Kind == Finish || (a.Kind == VKStatus && a.Terminal != "") {
		fmt.Fprintf(&b, " phase=%s", a.Terminal)
	}
	if a.Target != "" {
		fmt.Fprintf(&b, " target=%s", a.Target)
	}
	if a.Pending {
		b.WriteString(" pending")
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
	// Node switches on the kubelet-level world (admission, status manager
	// and API server, node shutdown); nil: the pod workers' world only.
	Node *Node
	// VK makes the plan a virtual-kubelet pod controller's (vk.go): its
	// actions are the VK kinds; nil for the kubelet's plans.
	VK *VK `json:",omitempty"`
}

// CriticalPriority is the priority from which a pod is critical (the
// system-cluster-critical class): never evicted.
const CriticalPriority = 2_000_000_000

// Node is the kubelet-level world of a plan: data, like the actions.
type Node struct {
	// CPU and Mem are the node's allocatable resources; 0 is unbounded.
	CPU, Mem int64
	// APIServer switches on the status manager and the API server model
	// (phase writes, the final delete, the watch echo).
	APIServer bool
	// EchoLag is how long an API write takes to come back to the kubelet
	// through its config watch (the status round trip).
	EchoLag time.Duration
	// ShutdownGroups are the node shutdown manager's priority groups, by
	// ascending Priority: a pod belongs to the last group whose Priority
	// is ≤ its own; each group is given Grace seconds.
	ShutdownGroups []ShutdownGroup
	// UniqueNames: the API server refuses the create of a pod object whose
	// name another object in the API holds (AlreadyExists), and a delete
	// of an object that is not in the API (NotFound) does nothing. Off in
	// the families written before names mattered: swarm gives all its
	// pods, API pods too, the one name "web". (Later fields are omitted
	// from JSON when off, so that older regression scripts keep their
	// bytes.)
	UniqueNames bool `json:",omitempty"`
	// ForceDeleteAfterGrace switches on the grace reaper (reaper.go): the
	// API-server side's delayed forced delete of a pod object whose
	// deletion grace expired (virtual-kubelet's pod controller, docs/bugs.md V2).
	ForceDeleteAfterGrace bool `json:",omitempty"`
}

// ShutdownGroup is one ShutdownGracePeriodByPodPriority entry.
type ShutdownGroup struct {
	Priority int32
	Grace    int64
}

func (n *Node) String() string {
	s := fmt.Sprintf("node cpu=%d mem=%d", n.CPU, n.Mem)
	if n.APIServer {
		s += fmt.Sprintf(" apiserver echo=%v", n.EchoLag)
	}
	for _, g := range n.ShutdownGroups {
		s += fmt.Sprintf(" group(prio>=%d grace=%ds)", g.Priority, g.Grace)
	}
	if n.UniqueNames {
		s += " unique-names"
	}
	if n.ForceDeleteAfterGrace {
		s += " grace-reaper"
	}
	return s
}

func (p Plan) String() string {
	lines := []string{fmt.Sprintf("plan %s: %d actions, %d clients", p.Family, len(p.Actions), p.Clients)}
	if p.Node != nil {
		lines = append(lines, "  "+p.Node.String())
	}
	if p.VK != nil {
		lines = append(lines, "  "+p.VK.String())
	}
	for _, a := range p.Actions {
		lines = append(lines, "  "+a.String())
	}
	return strings.Join(lines, "\n")
}

// PodName is a pod's object name: the plan's name when it gives one (a
// static pod's full name, an API pod's name), else "pod-<uid>".
func (a Action) PodName() string {
	if a.Name != "" {
		return a.Name
	} else if i, ok := LetterIndex(a.UID); ok {
		return podNames[i] // the same string, built once
	}
	return "pod-" + string(a.UID)
}

// letters are the one-letter UIDs the generators name their pods with (a,
// b, c, …: letterUID), and podNames their pod names, built once: a run
// then makes neither, and every seed's strings are the same memory.
const letters = "abcdefghijklmnopqrstuvwxyz"

var podNames, podFullNames = func() (names, full [len(letters)]string) {
	for i := range names {
		names[i] = "pod-" + letters[i:i+1]
		full[i] = names[i] + "_default"
	}
	return names, full
}()

// FullName is the pod's full name (the kubelet's name_namespace) in the
// namespace of every plan pod, "default".
func (a Action) FullName() string {
	if i, ok := LetterIndex(a.UID); ok && (a.Name == "" || a.Name == podNames[i]) {
		return podFullNames[i]
	}
	return a.PodName() + "_default"
}

// letterUID is the i-th one-letter UID: a, b, c, … (string(rune('a'+i))).
func letterUID(i int) types.UID {
	if i >= 0 && i < len(letters) {
		return types.UID(letters[i : i+1])
	}
	return types.UID(string(rune('a' + i)))
}

// SameUID is uid in the memory the generators name their pods with: a
// one-letter UID a to z as letterUID makes it (every seed's the same
// bytes), any other uid as it is. A string compared with an equal one in
// the same memory ends at the pointer; in other memory, at the bytes.
func SameUID[S ~string](uid S) S {
	if i, ok := LetterIndex(types.UID(uid)); ok {
		return S(letterUID(i))
	}
	return uid
}

// LetterIndex is the index of a one-letter UID a to z (letterUID's i).
func LetterIndex(uid types.UID) (int, bool) {
	if len(uid) == 1 && 'a' <= uid[0] && uid[0] <= 'z' {
		return int(uid[0] - 'a'), true
	}
	return 0, false
}

// Fits reports whether requests of cpu and mem in all fit the node (0:
// unlimited).
func (n *Node) Fits(cpu, mem int64) bool {
	return (n.CPU == 0 || cpu <= n.CPU) && (n.Mem == 0 || mem <= n.Mem)
}

// ActionKindNamed is the action kind whose String is name.
func ActionKindNamed(name string) (ActionKind, bool) {
	for k, n := range actionNames {
		if n == name {
			return ActionKind(k), true
		}
	}
	return 0, false
}
