// Package ops is the operation vocabulary of the reference model (package
// model): plain values a recorder fills in from what it saw, with no
// pointers into the implementation's types — the client calls, the
// effects the implementation fires, the worker callbacks and the optional
// WorkerStep marker, their outputs, and their trace lines (Describe). The
// recording contract is model's (its package doc). It imports only the
// standard library. model states its rules over these values, and the rest
// of the repository names them here (ops.UpdatePod), never through model.
package ops

// Phase is the pod's API phase, as far as the pod workers care (SPEC §1.4
// step 6: only Succeeded and Failed matter).
type Phase uint8

// Phases of a pod.
const (
	PhasePending Phase = iota
	PhaseRunning
	PhaseSucceeded
	PhaseFailed
)

// Terminal reports Succeeded or Failed.
func (p Phase) Terminal() bool { return p == PhaseSucceeded || p == PhaseFailed }

func (p Phase) String() string {
	return [...]string{"Pending", "Running", "Succeeded", "Failed"}[p]
}

// Pod is the part of a v1.Pod the pod workers read. Version identifies the
// content (the recorder numbers every distinct pod object it hands to
// UpdatePod), so a sync call can be matched with the update it consumed.
type Pod struct {
	UID       string
	Name      string
	Namespace string
	// Static is true for pods from a non-API source (SPEC §1.10).
	Static  bool
	Version int
	// DeletionTimestamp is true once the API server set one.
	DeletionTimestamp bool
	// DeletionGrace is DeletionGracePeriodSeconds, meaningful only when
	// HasDeletionGrace (a nil pointer upstream).
	DeletionGrace    int64
	HasDeletionGrace bool
	Phase            Phase
	// SpecGrace is spec.terminationGracePeriodSeconds with the API default
	// (30) already applied; 0 for a synthetic runtime pod.
	SpecGrace int64
}

// FullName is the static-pod exclusion key, name_namespace (SPEC §1.10).
func (p Pod) FullName() string {
	var room [64]byte
	return string(p.AppendFullName(room[:0]))
}

// AppendFullName appends FullName to dst, so that a lookup keyed by it
// need not allocate (for the checker: model/check plans partitions by it).
func (p *Pod) AppendFullName(dst []byte) []byte {
	return append(append(append(dst, p.Name...), '_'), p.Namespace...)
}

// UpdateType is the kubelet's SyncPodType (SPEC §1.3); the zero value is sync.
type UpdateType uint8

// Update types.
const (
	Sync UpdateType = iota
	Update
	Create
	Kill
)

func (t UpdateType) String() string { return [...]string{"sync", "update", "create", "kill"}[t] }

// KillOptions is KillPodOptions without the function values: CompletionID
// names the CompletedCh (0 = none), so its firing can be matched later.
type KillOptions struct {
	Evict            bool
	GraceOverride    int64
	HasGraceOverride bool
	CompletionID     int
}

// CacheView is what the recorder knows about the runtime cache when a pod is
// first seen: SPEC §1.4 step 2 creates a terminal-phase pod directly in state
// D when the cache shows nothing running. CacheUnknown lets the model accept
// both outcomes.
type CacheView int

// Runtime cache views.
const (
	CacheUnknown CacheView = iota
	CacheIdle
	CacheBusy
)

// Input is one operation as invoked. The concrete types below are the whole
// vocabulary; the method is unexported so the set stays closed.
type Input interface{ isInput() }

// Output is what an operation returned: Answer, KnownPods, or nil for
// operations that return nothing.
type Output interface{ isOutput() }

// UpdatePod is a client call of UpdatePod. With RuntimeOnly the update
// carries only a RunningPod: Pod then holds just UID, Name and Namespace.
type UpdatePod struct {
	Type        UpdateType
	Pod         Pod
	RuntimeOnly bool
	Kill        KillOptions
	Cache       CacheView
}

// UpdateResult is what a target reports of an UpdatePod besides its
// effect: the runtime cache view the call read (SPEC §1.4 step 2, a
// terminal-phase pod seen for the first time), CacheUnknown when it read
// none. history.Recorder folds it into the call's UpdatePod.Cache, so the
// model pins the one outcome the code chose; the operation itself returns
// nothing.
type UpdateResult struct{ Cache CacheView }

// SyncKnownPods is housekeeping's call with the desired UIDs; its output is
// KnownPods.
type SyncKnownPods struct{ Desired []string }

// QueryKind names a query method of the PodWorkers interface (SPEC §1.14).
type QueryKind int

// Queries. MirrorPodTerminating takes Query.FullName, the others Query.UID.
const (
	IsPodKnownTerminated QueryKind = iota
	CouldHaveRunningContainers
	ShouldPodBeFinished
	IsPodTerminationRequested
	ShouldPodContainersBeTerminating
	ShouldPodRuntimeBeRemoved
	ShouldPodContentBeRemoved
	IsPodForMirrorPodTerminatingByFullName
)

func (k QueryKind) String() string {
	return [...]string{"IsPodKnownTerminated", "CouldHaveRunningContainers", "ShouldPodBeFinished",
		"IsPodTerminationRequested", "ShouldPodContainersBeTerminating", "ShouldPodRuntimeBeRemoved",
		"ShouldPodContentBeRemoved", "IsPodForMirrorPodTerminatingByFullName"}[k]
}

// Query is one query call; its output is an Answer.
type Query struct {
	Kind     QueryKind
	UID      string
	FullName string
}

// CompletionFired: the CompletedCh of a kill fired (recorded at the Fire).
type CompletionFired struct {
	UID string
	ID  int
}

// CancelFired: the cancellation of the pod's current sync context fired.
type CancelFired struct{ UID string }

// KillPodNowDone: killPodNow's wait for completion ID returned; its output is
// Answer(true) if it saw the completion, Answer(false) on timeout. The kill
// itself is recorded as an UpdatePod carrying the same CompletionID.
type KillPodNowDone struct {
	UID string
	ID  int
}

// SyncFn names one of the four lifecycle callbacks (SPEC §1.8 step 3).
type SyncFn uint8

// Sync callbacks. NoSync marks an idle worker.
const (
	NoSync SyncFn = iota
	SyncPod
	SyncTerminatingPod
	SyncTerminatingRuntimePod
	SyncTerminatedPod
)

func (f SyncFn) String() string {
	return [...]string{"-", "SyncPod", "SyncTerminatingPod", "SyncTerminatingRuntimePod", "SyncTerminatedPod"}[f]
}

// SyncBegin: the worker entered a callback. Type is checked for SyncPod only
// (the others do not receive it), Version for all but the runtime variant,
// Grace for SyncTerminatingPod only.
type SyncBegin struct {
	UID     string
	Fn      SyncFn
	Type    UpdateType
	Version int
	Grace   int64
}

// Outcome is how a callback returned.
type Outcome uint8

// Outcomes: nil, another error, or context.Canceled.
const (
	OK Outcome = iota
	Failed
	Canceled
)

func (o Outcome) String() string { return [...]string{"ok", "error", "canceled"}[o] }

// SyncEnd: a callback returned. IsTerminal is SyncPod's natural completion;
// Err is the shape of a failed call's error (errshape.go).
type SyncEnd struct {
	UID        string
	Fn         SyncFn
	Outcome    Outcome
	IsTerminal bool
	Err        ErrShape
}

// StatusReadFailed: the worker of UID, having taken an update, failed to
// read the pod's runtime status (PodCache.GetNewerThan) before its sync
// call, so the pass ends as an error with no call (SPEC §1.8 step 2). A
// point at the failed read, recorded by the target that implements the
// cache. It is the only way a pass ends without its call: a history that
// records no failed read pins every take to its call (no target's cache
// fails today: the world's and realkubelet's GetNewerThan return no error).
type StatusReadFailed struct{ UID string }

// WorkerStep marks that the worker goroutine of UID ran one critical
// section under the pod lock now (take the pending update, acknowledge
// termination or apply an outcome — or nothing). Recording it is optional;
// a history that carries it for every such section lets model/check's
// Replay run in witness mode (see model's package doc for the recording
// contract).
type WorkerStep struct{ UID string }

// WorkType is PodWorkType, the State field of SyncKnownPods' result.
type WorkType int

// Work types (SPEC §1.2 WorkType()).
const (
	SyncWork WorkType = iota
	TerminatingWork
	TerminatedWork
)

func (w WorkType) String() string { return [...]string{"sync", "terminating", "terminated"}[w] }

// KnownPod is one entry of SyncKnownPods' result (PodWorkerSync plus UID).
type KnownPod struct {
	UID       string
	State     WorkType
	Orphan    bool
	HasConfig bool
	Static    bool
}

// KnownPods is SyncKnownPods' result. Order does not matter: the model sorts
// by UID before comparing.
type KnownPods []KnownPod

// Answer is a query's boolean, or whether killPodNow saw its completion.
type Answer bool

func (UpdatePod) isInput()        {}
func (SyncKnownPods) isInput()    {}
func (Query) isInput()            {}
func (CompletionFired) isInput()  {}
func (CancelFired) isInput()      {}
func (KillPodNowDone) isInput()   {}
func (SyncBegin) isInput()        {}
func (SyncEnd) isInput()          {}
func (WorkerStep) isInput()       {}
func (StatusReadFailed) isInput() {}

func (KnownPods) isOutput()    {}
func (UpdateResult) isOutput() {}
func (Answer) isOutput()       {}

// Op is one observed operation: what was asked and what came back.
type Op struct {
	Input  Input
	Output Output
}

// UIDOf is the UID an operation is about (its pod, its worker, its kill);
// "" for SyncKnownPods, which is about every pod.
func UIDOf(in Input) string {
	switch in := in.(type) {
	case UpdatePod:
		return in.Pod.UID
	case Query:
		return in.UID
	case CompletionFired:
		return in.UID
	case CancelFired:
		return in.UID
	case KillPodNowDone:
		return in.UID
	case SyncBegin:
		return in.UID
	case SyncEnd:
		return in.UID
	case WorkerStep:
		return in.UID
	case StatusReadFailed:
		return in.UID
	}
	return ""
}
