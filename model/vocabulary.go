package model

import "github.com/podsim/podsim/model/ops"

// The operation vocabulary is package ops's; the specification and the rest
// of the repository name it here, as model's own (model.UpdatePod is
// ops.UpdatePod: aliases, not copies).
type (
	Phase            = ops.Phase
	Pod              = ops.Pod
	UpdateType       = ops.UpdateType
	KillOptions      = ops.KillOptions
	CacheView        = ops.CacheView
	Input            = ops.Input
	Output           = ops.Output
	UpdatePod        = ops.UpdatePod
	UpdateResult     = ops.UpdateResult
	SyncKnownPods    = ops.SyncKnownPods
	QueryKind        = ops.QueryKind
	Query            = ops.Query
	CompletionFired  = ops.CompletionFired
	CancelFired      = ops.CancelFired
	KillPodNowDone   = ops.KillPodNowDone
	SyncFn           = ops.SyncFn
	SyncBegin        = ops.SyncBegin
	Outcome          = ops.Outcome
	SyncEnd          = ops.SyncEnd
	ErrShape         = ops.ErrShape
	StatusReadFailed = ops.StatusReadFailed
	WorkerStep       = ops.WorkerStep
	WorkType         = ops.WorkType
	KnownPod         = ops.KnownPod
	KnownPods        = ops.KnownPods
	Answer           = ops.Answer
	Op               = ops.Op
)

// The vocabulary's constants, by type.
const (
	PhasePending, PhaseRunning, PhaseSucceeded, PhaseFailed = ops.PhasePending, ops.PhaseRunning, ops.PhaseSucceeded, ops.PhaseFailed

	Sync, Update, Create, Kill = ops.Sync, ops.Update, ops.Create, ops.Kill

	CacheUnknown, CacheIdle, CacheBusy = ops.CacheUnknown, ops.CacheIdle, ops.CacheBusy

	IsPodKnownTerminated                   = ops.IsPodKnownTerminated
	CouldHaveRunningContainers             = ops.CouldHaveRunningContainers
	ShouldPodBeFinished                    = ops.ShouldPodBeFinished
	IsPodTerminationRequested              = ops.IsPodTerminationRequested
	ShouldPodContainersBeTerminating       = ops.ShouldPodContainersBeTerminating
	ShouldPodRuntimeBeRemoved              = ops.ShouldPodRuntimeBeRemoved
	ShouldPodContentBeRemoved              = ops.ShouldPodContentBeRemoved
	IsPodForMirrorPodTerminatingByFullName = ops.IsPodForMirrorPodTerminatingByFullName

	NoSync, SyncPod, SyncTerminatingPod = ops.NoSync, ops.SyncPod, ops.SyncTerminatingPod

	SyncTerminatingRuntimePod, SyncTerminatedPod = ops.SyncTerminatingRuntimePod, ops.SyncTerminatedPod

	OK, Failed, Canceled = ops.OK, ops.Failed, ops.Canceled

	SyncWork, TerminatingWork, TerminatedWork = ops.SyncWork, ops.TerminatingWork, ops.TerminatedWork
)

// UIDOf is ops.UIDOf: the UID an operation is about.
func UIDOf(in Input) string { return ops.UIDOf(in) }

// Describe is ops.Describe: an operation as a trace line, e.g.
// "worker/a SyncTerminatingPod begin v3 grace=5".
func Describe(in Input, out Output) string { return ops.Describe(in, out) }
