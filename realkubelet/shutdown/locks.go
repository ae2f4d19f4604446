package shutdown

import (
	"fmt"
	"sync"

	"k8s.io/kubernetes/pkg/kubelet/nodeshutdown/systemd"
)

// An inhibit lock is a file descriptor: logind's Inhibit call hands one to
// the kubelet, and ReleaseInhibitLock is syscall.Close of it. So a lock
// belongs to the process, not to the connection it came over, and
// releasing a number the manager does not hold closes some other file of
// the kubelet's, or nothing, or (released twice) a descriptor the number
// was reused for. lockTable is that per process: every connection of one
// manager shares it.
type lockTable struct {
	mu   sync.Mutex
	last systemd.InhibitLock // the last lock handed out
	held map[systemd.InhibitLock]bool
	// lastReleased is the lock released last.
	lastReleased systemd.InhibitLock
	bad          []LockProblem
}

// LockProblem is a release of a lock the manager did not hold. Stale: it
// is the lock released last, released again right after a newer lock was
// handed out — acquireInhibitLock releasing m.inhibitLock, which an
// earlier release left set (upstream finding GJ, docs/upstream-findings.md).
type LockProblem struct {
	Msg   string
	Stale bool
}

func newLockTable() *lockTable { return &lockTable{held: map[systemd.InhibitLock]bool{}} }

// take hands out the next lock.
func (t *lockTable) take() systemd.InhibitLock {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.last++
	t.held[t.last] = true
	return t.last
}

// release closes lock, or records why it could not.
func (t *lockTable) release(lock systemd.InhibitLock) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case t.held[lock]:
		delete(t.held, lock)
		t.lastReleased = lock
	case lock == 0 || lock > t.last:
		t.bad = append(t.bad, LockProblem{Msg: fmt.Sprintf("the node shutdown manager released inhibit lock %d, which logind never handed out (a close of a file descriptor that is not a lock)", lock)})
	default:
		stale := lock == t.lastReleased && t.held[t.last] && t.last > lock
		t.bad = append(t.bad, LockProblem{Msg: fmt.Sprintf("the node shutdown manager released inhibit lock %d a second time (a second close of that file descriptor, which may by then be another file's)", lock),
			Stale: stale})
	}
}

// holds reports whether the manager holds any lock.
func (t *lockTable) holds() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.held) > 0
}

// problems are the bad releases so far, in order.
func (t *lockTable) problems() []LockProblem {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]LockProblem(nil), t.bad...)
}
