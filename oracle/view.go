package oracle

import (
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
)

// View is what an oracle may read of a target besides the event stream.
// A part the target cannot offer is nil.
type View interface {
	// Settle is when the target's settle phase began and ended: nil before
	// Settled, or when the target has none. It holds no state of the pod
	// workers: liveness judges the end of a run from the history alone
	// (docs/design.md, "Observable-only judging").
	Settle() *Settle
	// Config is what the config source says of uid at the end of the run
	// (the zero value if the plan never named it).
	Config(uid types.UID) PodConfig
	// Kubelet is the kubelet around the pod workers and its API server;
	// nil for a target that drives the pod workers alone.
	Kubelet() Kubelet
	// Elapsed is the target's virtual time now.
	Elapsed() time.Duration
}

// The query answers are no part of the View: they are in the history, on
// every LockReleasing event (history.Event.Probe), as the target's public
// query methods returned them when the target called them there.

// Answers are the query answers for one UID (history.Answers).
type Answers = history.Answers

// Settle is the timing of the target's settle phase (world/settle.go):
// HealedAt, the faults healed and the settle phase began; QuiesceAt, the
// inputs stopped; At, the workers had drained and Settled came. Seq is the
// last event before Settled.
type Settle struct {
	HealedAt, QuiesceAt, At time.Duration
	Seq                     int64
}

// PodConfig is what the config source says about a pod at the end.
type PodConfig struct {
	InConfig bool // desired: ADDed and not REMOVEd or vanished
	Deleted  bool // the API server set a deletion timestamp
	Static   bool
	FullName string
	Terminal bool // its phase in config is Succeeded or Failed
	Rejected bool // the kubelet rejected it at admission: never sent to the pod workers
}

// Kubelet is what the kubelet-level checks read of the kubelet around the
// pod workers, at the instant a Note event reports one of its actions.
type Kubelet interface {
	// UIDs lists every pod the plan named, sorted.
	UIDs() []types.UID
	// Pod is the kubelet's and the API server's view of uid.
	Pod(uid types.UID) KubeletPod
	// APIServer reports whether the target models the API server.
	APIServer() bool
	// ShutdownAt is when the last node shutdown began (0, or negative, if
	// none did).
	ShutdownAt() time.Duration
	// ShuttingDown: a node shutdown is in force (admission is closed): one
	// began and the manager has read no cancellation of it since.
	ShuttingDown() bool
}

// KubeletPod is one pod as the kubelet's actors and the API server see it.
type KubeletPod struct {
	Name        string
	Incarnation int // the order of its pod object's first ADD: a new object under a reused UID is another
	// The config source: desired, its phase there, deleted.
	InConfig bool
	Phase    v1.PodPhase
	Deleted  bool
	// The kubelet: handed to the pod workers by an ADD (Admitted), refused
	// at admission (Rejected), first added while a node shutdown was in
	// force (ShuttingDown).
	Admitted, Rejected bool
	AddedInShutdown    bool
	FirstAddAt         time.Duration
	// StatusPhase is the status manager's phase for the pod.
	StatusPhase v1.PodPhase
	// The API server: the object exists, its published phase, when its
	// deletion timestamp was set.
	InAPI     bool
	APIPhase  v1.PodPhase
	DeletedAt time.Duration
}
