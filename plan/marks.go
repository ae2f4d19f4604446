package plan

// Coverage marks: situations a family exists to reach. A family whose
// marks stay at zero over many seeds has a generator that misses its
// point (TestFamiliesReachTheirMarks).
const (
	MarkKillDuringSyncPod      = "kill-during-syncpod"      // termination requested while SyncPod runs
	MarkCancelDuringSyncPod    = "cancel-during-syncpod"    // a running SyncPod's context cancelled
	MarkGraceShortened         = "grace-shortened"          // cancel while SyncTerminatingPod runs
	MarkEarlyKill              = "early-kill"               // terminating before any SyncPod
	MarkSyncKnownDuringSync    = "synckn-during-sync"       // SyncKnownPods while a callback runs
	MarkStaticWaiterKilled     = "static-waiter-killed"     // a static pod killed before it ever synced
	MarkStaticExcluded         = "static-excluded"          // two static pods of one name alive, one waiting
	MarkRestartAfterFinish     = "restart-after-finish"     // SyncPod of a UID that had finished (reuse)
	MarkRuntimePodKilled       = "runtime-pod-killed"       // SyncTerminatingRuntimePod ran
	MarkNaturalCompletion      = "natural-completion"       // SyncPod reported isTerminal
	MarkTerminatingRetried     = "terminating-retried"      // SyncTerminatingPod failed, then ran again
	MarkOrphanDriven           = "orphan-driven"            // SyncKnownPods started an orphan's termination
	MarkKillNowTimedOut        = "killnow-timed-out"        // killPodNow gave up
	MarkCompletionFired        = "completion-fired"         // a kill's completion fired
	MarkUpdateWhileTerminating = "update-while-terminating" // an update reached a terminating pod

	// The kubelet-level world (Plan.Node), set by the world's actors.
	MarkAdmissionRejected       = "admission-rejected"        // a pod did not fit and was rejected
	MarkAdmittedAfterRelease    = "admitted-after-release"    // a pod fit only because a pod in config no longer counted
	MarkRejectedDeletedGone     = "rejected-deleted-gone"     // a pod rejected at admission was deleted from the API
	MarkTerminalWriteDeferred   = "terminal-write-deferred"   // a terminal phase waited for CouldHaveRunning=false
	MarkShutdownKilled          = "shutdown-killed"           // the node shutdown killed a pod in time
	MarkShutdownAdmissionClosed = "shutdown-admission-closed" // a pod was rejected during the node shutdown
	MarkShutdownGroupGraceOver  = "shutdown-group-grace-over" // a shutdown group's grace ran out before its kills returned
	MarkShutdownOffGroup        = "shutdown-off-group"        // the node shutdown killed a pod whose priority is no group's
	MarkShutdownCancelled       = "shutdown-cancelled"        // the node shutdown manager read a cancellation and reopened admission
	MarkCancelDuringShutdown    = "cancel-during-shutdown"    // the cancellation came while the shutdown's kills ran
	MarkAdmittedAfterCancel     = "admitted-after-cancel"     // a pod first added after a cancelled shutdown was admitted
	MarkShutdownAgain           = "shutdown-again"            // a node shutdown began after a cancelled one
	MarkRestartInShutdown       = "restart-in-shutdown"       // the kubelet restarted while logind shut the node down
	MarkRestartShutdownRejected = "restart-shutdown-rejected" // a kubelet restarted in the node shutdown rejected a pod first added in it
	MarkEvictionCleanupWaited   = "eviction-cleanup-waited"   // the eviction manager saw its victim finished
	MarkEvictionSpared          = "eviction-spared"           // an eviction skipped a static, critical or inactive pod
	MarkRestartDeletedGone      = "restart-deleted-gone"      // a pod deleted before a kubelet restart was deleted from the API after it
	MarkNameTaken               = "name-taken"                // a create was refused: another pod object held the name
	MarkRecreatedInGrace        = "recreated-in-grace"        // a pod object was created while a same-name one's deletion grace ran
	MarkGraceReaped             = "grace-reaped"              // the grace reaper force-deleted an object whose grace expired
	// The fake runtime's error shapes (Faults.ErrorShapes), set by the world as a failed call returns.
	MarkErrNetworkNotReady = "error-network-not-ready" // the error held the network-not-ready message
	MarkErrBackoffExpired  = "error-backoff-expired"   // its earliest BackoffError had expired (no wait)
	MarkErrBackoffPending  = "error-backoff-pending"   // its earliest BackoffError ends within the resync interval
	MarkErrBackoffClamped  = "error-backoff-clamped"   // its earliest BackoffError ends beyond the resync interval
	MarkErrWrapped         = "error-wrapped"           // a BackoffError or network-not-ready error behind fmt.Errorf's %w
	MarkErrJoined          = "error-joined"            // the same inside errors.Join
	MarkErrAggregate       = "error-aggregate"         // the same inside a workers.Aggregate
	MarkErrKubeAggregate   = "error-kube-aggregate"    // the same inside an apimachinery aggregate (Errors() only)
	MarkErrEarliestOfMany  = "error-earliest-of-many"  // several BackoffErrors of different expiries in one error
	// Set from the event stream.
	MarkRestartShortcut     = "restart-terminal-shortcut" // after a kubelet restart, a pod's first call was SyncTerminatedPod
	MarkRestartDuringSync   = "restart-during-sync"       // the kubelet restarted while a sync call was in flight
	MarkRestartOrphanKilled = "restart-orphan-killed"     // after a kubelet restart, a runtime-only pod was killed
)
