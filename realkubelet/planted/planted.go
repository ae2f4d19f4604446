// Package planted lists the bugs realkubelet's tests plant in its driver
// and components, for the negative tests of its oracles and explanations:
// each makes a run go wrong in a way that resembles a known deviation, or
// a real bug, without being one. Only tests plant them. The files named
// below are realkubelet's.
package planted

// Bug is one planted bug; realkubelet's RunOptions carry at most one. The
// driver's own (the first three) make its record of what happened differ
// from what the real pod workers were told or did, for the negative tests
// of the explanations (explain_test.go); the others break a
// component where an oracle of the kubelet must see it. The zero value
// plants nothing.
type Bug uint8

const (
	// DecoyCompletion: the first kill of a running pod hands the pod
	// workers a decoy completion channel, so the recorded one is never
	// closed on the normal termination path.
	DecoyCompletion Bug = iota + 1
	// LostKill: the first kill is recorded but never reaches the pod
	// workers.
	LostKill
	// LyingSyncer: the first SyncTerminatingPod that the driver
	// releases with success returns an error to the pod workers.
	LyingSyncer
	// ShutdownKeepsPhase: the node shutdown manager's kills carry a
	// status function that leaves the phase alone (B4, at the manager's
	// boundary).
	ShutdownKeepsPhase
	// AdmitInShutdown: admission lets pods in during the shutdown.
	AdmitInShutdown
	// The status component's (status.go), for the kubelet oracle's
	// negative tests (status_test.go): UnsafeStatus gives the status
	// manager a deletion safety that always says "no running containers";
	// EarlyTerminate calls TerminatePod when SyncTerminatedPod begins
	// instead of when it succeeds; NoTerminate never calls it.
	UnsafeStatus
	EarlyTerminate
	NoTerminate
	// IdleCacheOnRestart: the restarted process's runtime cache shows
	// every pod idle, so a terminal pod whose containers still run is
	// taken as terminated at first sight (restart.go, restart_test.go).
	IdleCacheOnRestart
	// BareKillIsKubelets: admission takes a termination request that
	// only a remove of a pod out of config made (a bare kill, noteRemove)
	// for the kubelet's and skips, as the driver did before swarm seed 859
	// (actors_test.go).
	BareKillIsKubelets
	// NoteEveryRealSyncPod: every SyncPod is noted as one that creates
	// containers, also one whose phase is already terminal (upstream's
	// SyncPod returns isTerminal before it sets anything up), as the
	// driver did before session 24 (swarm-restart seed 1507: K5).
	NoteEveryRealSyncPod
	// ShutdownNeverTriggered: the node shutdown manager is started but
	// never sent its event, so its processing never runs or ends
	// (actors_test.go: the settle phase's L3 for unfinished managers).
	ShutdownNeverTriggered
	// LoseStatus: the status manager never gets the statuses the
	// kubelet's callbacks set (SetPodStatus is skipped; status_test.go:
	// the settle phase's P5).
	LoseStatus
	// EvictSeesNoPods, EvictSeesNoPriority: the eviction manager
	// is handed no active pods, or the active pods without their
	// priorities (actors_test.go: the settle phase's P6).
	EvictSeesNoPods
	EvictSeesNoPriority
	// EvictKeepsPhase: the eviction's kills carry a status function
	// that leaves the phase alone (P6, as ShutdownKeepsPhase is K5).
	EvictKeepsPhase
	// ReadyTerminal: every terminal status the status manager writes
	// is written again with the pod ready, as a kubelet before upstream's
	// #110256 could send it (status_test.go: K7).
	ReadyTerminal
	// LoseReadiness: the statuses the kubelet's callbacks set carry no
	// readiness conditions, so a running pod never shows ready in the API
	// (status_test.go: the settle phase's P5).
	LoseReadiness
	// StripDisruption: the API server drops the DisruptionTarget
	// condition from status writes, so an evicted or shut-down pod turns
	// terminal without it (status_test.go: K8).
	StripDisruption
	// NoDisruption: the eviction's and the node shutdown's kills carry
	// a status function that sets no DisruptionTarget (actors_test.go: K8).
	NoDisruption
	// LogindLeak, LogindGone: with RunOptions.LogindRestart, the
	// fake logind loses the manager's Close of the connection it replaced
	// (as if it leaked it, kubernetes#120613), or refuses every reconnect
	// (logind_test.go: P7).
	LogindLeak
	LogindGone
	// LogindDelayStuck: with RunOptions.LogindDelay, logind never
	// applies the override, so the manager's start times out
	// (logind_delay_test.go: P7).
	LogindDelayStuck
	// CancelLost: a node shutdown's cancellation is taken for read but
	// never sent to the manager, so its admission stays closed
	// (cancel_test.go: P7).
	CancelLost
	// RestartToldAdmits: a kubelet restarted during the node shutdown is
	// told of it at its start, as a kubelet that asks logind would be
	// (RunOptions.restartLearns), and admission lets pods in all the
	// same: a K5 that is not GK (shutdown_restart_test.go).
	RestartToldAdmits
	// LockKept: the node shutdown manager's release of its inhibit lock
	// at the end of its processing is lost, so it keeps the lock while
	// logind shuts the node down: a lingering lock that is not GK
	// (shutdown_restart_test.go: P7).
	LockKept
	// RejectsAlways: the node shutdown manager's admission refuses every
	// pod, a shutdown or not (a mutant of its Admit): the kubelet starts
	// its manager with the node, so the creates before a shutdown meet it
	// (shutdown_start_test.go: P7).
	RejectsAlways
	// GraceStretched: the node shutdown manager kills with a grace one
	// second longer than it computed; KillLingers: each of its kills
	// returns to it a second after killPodNow did, so its groups end
	// late (actors/kills.go, shutdown_kills_test.go: P7).
	GraceStretched
	KillLingers
	// EvictGraceStretched: the eviction manager's kills carry a grace one
	// second longer than it computed (actors_test.go: P6).
	EvictGraceStretched
	// TriggeredSyncSkipped: the status manager's triggered passes sync
	// nothing; only its full passes write (status_test.go: P5).
	TriggeredSyncSkipped
)
