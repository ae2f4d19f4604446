package workers

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/workers/internal/mutant"
)

// Defaults are the kubelet's: newPodWorkers receives kl.resyncInterval
// (KubeletConfiguration.SyncFrequency, default 1 minute) and backOffPeriod
// (10 seconds, pkg/kubelet/kubelet.go).
const (
	// DefaultResyncInterval is the delay before a successfully synced pod is
	// synced again.
	DefaultResyncInterval = time.Minute
	// DefaultBackoffPeriod is the delay before a failed sync is retried.
	DefaultBackoffPeriod = 10 * time.Second

	// transientErrorBackoff is the kubelet's backOffOnTransientErrorPeriod:
	// a sync that failed because the network is not ready retries soon.
	transientErrorBackoff = time.Second
	// networkNotReadyMessage is the kubelet's NetworkNotReadyErrorMsg.
	networkNotReadyMessage = "network is not ready"
)

// WorkQueue is the kubelet's delayed re-sync queue. The pod workers only
// enqueue; the kubelet turns due entries into UpdatePod(sync) for pods still
// in its pod manager (SPEC §1.8). Enqueue is called with the pod lock held, so
// it must neither block for long nor call back into PodWorkers.
type WorkQueue interface {
	Enqueue(uid types.UID, delay time.Duration)
}

// Config wires the pod workers to the world around them.
type Config struct {
	// Runtime provides goroutines, locks, wake-ups, time and jitter. Required.
	Runtime Runtime
	// Syncer receives the lifecycle callbacks. Required.
	Syncer Syncer
	// Cache is the runtime status cache read before each sync. Required.
	// GetNewerThan is called without the pod lock; Get is called with it
	// held (first sight of a terminal-phase pod, §1.13), so Get must not
	// block or call back into PodWorkers.
	Cache PodCache
	// Queue receives re-sync requests; nil means a fresh Queue over Runtime.
	Queue WorkQueue
	// ResyncInterval is the delay after a successful sync; 0 means
	// DefaultResyncInterval.
	ResyncInterval time.Duration
	// BackoffPeriod is the delay after a failed sync; 0 means
	// DefaultBackoffPeriod.
	BackoffPeriod time.Duration
	// Mutants re-introduces catalogued bugs (docs/bugs.md) for the regression
	// gate. Only workers/mutants.Enable can set it; the zero value, the
	// only one other code can write, is the correct code.
	Mutants mutant.Set
	// NoAssertions turns the in-line assertions that read the workers'
	// private state (a "workers: …" panic where a record is found in a state
	// SPEC §1 rules out) into no-ops: the code goes on as if they held. A
	// harness that judges only what a caller observes sets it, so that no
	// verdict rests on private state. The zero value keeps them on.
	NoAssertions bool
	// Names, if set, keeps the names built for the next pod workers given
	// it (a harness that runs many seeds); nil builds each name anew.
	Names *Names
}

// PodWorkers is the pod-worker state machine of SPEC §1: one record and at
// most one worker goroutine per pod UID, all state under one lock.
type PodWorkers struct {
	rt             Runtime
	syncer         Syncer
	cache          PodCache
	queue          WorkQueue
	resyncInterval time.Duration
	backoffPeriod  time.Duration
	mutants        mutant.Set
	noAssertions   bool
	names          *Names // nil: every name built anew

	// podLock guards every field below.
	podLock sync.Locker
	// podsSynced becomes true at the first SyncKnownPods and never reverts
	// (SPEC §1.1): from then on an unknown UID means "not running".
	podsSynced bool
	// stopped is set by Shutdown; no worker runs afterwards.
	stopped bool
	// staticChecked: a static-pod map held an entry at the last invariant
	// check; broken: a check found an invariant broken
	// (CheckInvariantsOfLocked checks everything then).
	staticChecked, broken bool
	// records holds one record per known UID (upstream's podSyncStatuses
	// map); sortedUIDs caches its UIDs (nil: not built since the last record
	// was added or removed, see recordsChangedLocked).
	records      recordList
	firstRecords [4]recordEntry // records' first array
	sortedUIDs   []types.UID
	// workerGenerations counts the worker goroutines started per UID, so
	// that a UID reused after a purge gets a distinct name (worker/<uid>#2)
	// while its old worker may still be exiting. One int per UID seen.
	workerGenerations map[types.UID]int
	// startedStaticPodsByFullname maps a static pod full name to the one UID
	// allowed to run under it (SPEC §1.10).
	startedStaticPodsByFullname map[string]types.UID
	// waitingToStartStaticPodsByFullname holds, per full name, the static
	// UIDs in the order their workers were created.
	waitingToStartStaticPodsByFullname map[string][]types.UID
	// made are the records made in this memory, by this run and the runs
	// before Renew; used how many this run has (newRecordLocked).
	made []*podSyncStatus
	used int
}

// New returns pod workers over cfg. It panics when a required dependency is
// missing, a programmer error.
func New(cfg Config) *PodWorkers { return Renew(nil, cfg) }

// Renew is New(cfg) built in the memory of prev, pod workers of New or
// Renew that nothing uses any more (no goroutine of theirs runs, no caller
// holds them or their records): every field as New sets it, prev's three
// maps emptied and kept, its records' memory handed out again (a harness
// that runs seed after seed makes no new ones). nil prev: New's own
// memory.
func Renew(prev *PodWorkers, cfg Config) *PodWorkers {
	switch {
	case cfg.Runtime == nil:
		panic("workers: New: Config.Runtime is nil")
	case cfg.Syncer == nil:
		panic("workers: New: Config.Syncer is nil")
	case cfg.Cache == nil:
		panic("workers: New: Config.Cache is nil")
	}
	if cfg.Queue == nil {
		cfg.Queue = NewQueue(cfg.Runtime)
	}
	if cfg.ResyncInterval <= 0 {
		cfg.ResyncInterval = DefaultResyncInterval
	}
	if cfg.BackoffPeriod <= 0 {
		cfg.BackoffPeriod = DefaultBackoffPeriod
	}
	p := prev
	if p == nil {
		p = &PodWorkers{workerGenerations: map[types.UID]int{}, startedStaticPodsByFullname: map[string]types.UID{},
			waitingToStartStaticPodsByFullname: map[string][]types.UID{}}
	}
	gens, started, waiting := p.workerGenerations, p.startedStaticPodsByFullname, p.waitingToStartStaticPodsByFullname
	clear(gens)
	clear(started)
	clear(waiting)
	*p = PodWorkers{
		rt:                                 cfg.Runtime,
		syncer:                             cfg.Syncer,
		cache:                              cfg.Cache,
		queue:                              cfg.Queue,
		resyncInterval:                     cfg.ResyncInterval,
		backoffPeriod:                      cfg.BackoffPeriod,
		mutants:                            cfg.Mutants,
		noAssertions:                       cfg.NoAssertions,
		names:                              cfg.Names,
		podLock:                            cfg.Runtime.NewMutex("podLock"),
		workerGenerations:                  gens,
		startedStaticPodsByFullname:        started,
		waitingToStartStaticPodsByFullname: waiting,
		made:                               p.made, // the records of the runs before, handed out again
	}
	p.records = p.firstRecords[:0] // most runs have a few: no allocation
	return p
}

// WorkQueue returns the queue the workers enqueue re-syncs on (the one from
// Config, or the Queue New created).
func (p *PodWorkers) WorkQueue() WorkQueue {
	return p.queue
}

// Shutdown stops every worker: each goroutine exits once its current sync
// call (if any) returns, and later UpdatePod calls are dropped (a later
// KillPodNow times out). Records and queries stay available. The kubelet never stops its pod workers; harnesses
// need it so that runs end without leaked goroutines.
func (p *PodWorkers) Shutdown() {
	p.podLock.Lock()
	defer p.podLock.Unlock()
	p.stopped = true
	for _, uid := range p.sortedUIDsLocked() {
		p.closeUpdatesLocked(p.records.at(uid))
	}
}

// sortedUIDsLocked returns the known UIDs in ascending order: every loop
// over records whose order can reach behaviour or output goes through it.
// The list is read only and never changes: a loop over it may add or remove
// records as it goes (recordsChangedLocked drops the list, the next call
// builds a new one), so no copy is made.
func (p *PodWorkers) sortedUIDsLocked() []types.UID {
	if len(p.records) == 0 {
		return nil
	}
	if p.sortedUIDs == nil {
		p.sortedUIDs = p.records.uids()
	}
	return p.sortedUIDs
}

// recordsChangedLocked drops the cached UID order after a record was added
// to or removed from records.
func (p *PodWorkers) recordsChangedLocked() { p.sortedUIDs = nil }

// notifyLocked makes a wake-up pending for the record's worker, if it still
// has one (it has none once finished or after Shutdown).
func (p *PodWorkers) notifyLocked(s *podSyncStatus) {
	if s.updates != nil {
		s.updates.Notify()
	}
}

// closeUpdatesLocked closes the record's wake-up signal, which ends its
// worker goroutine (the kubelet's cleanupPodUpdates).
func (p *PodWorkers) closeUpdatesLocked(s *podSyncStatus) {
	if s.updates != nil {
		s.updates.Close()
		s.updates = nil
	}
}
