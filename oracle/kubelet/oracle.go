package kubelet

import (
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/oracle"
)

// New returns the kubelet-level oracle. It is one for the whole run, not
// one per kubelet process: at a restart the kubelet's checks start afresh
// (a new process remembers nothing), while K6's record of delete requests
// is the API server's and is kept.
func New() oracle.Oracle {
	c := &checker{reporter: &reporter{seen: map[string]bool{}}}
	c.kube = newKubeletCheck(c.reporter)
	c.identity.reporter = c.reporter
	return c
}

// Reset implements oracle.Resetter: c as New makes it, its maps emptied
// and kept.
func (c *checker) Reset() {
	r, k, deletes := c.reporter, c.kube, c.identity.deletes
	clear(r.seen)
	k.answers.reset()
	clear(k.shutdownKilled)
	clear(k.cleanedUp)
	clear(deletes)
	*r = reporter{seen: r.seen}
	*c = checker{reporter: r, kube: kubeletCheck{reporter: r, answers: k.answers, shutdownKilled: k.shutdownKilled,
		cleanedUp: k.cleanedUp}, identity: identityCheck{reporter: r, deletes: deletes}}
}

type checker struct {
	*reporter
	kube     kubeletCheck
	identity identityCheck
}

// reporter collects the violations of both checks, each message once (a
// broken state is reported where it is first seen).
type reporter struct {
	// at and seq are the event being judged's: where a violation is found.
	at         time.Duration
	seq        int64
	violations []history.Violation
	seen       map[string]bool
}

func (r *reporter) violate(invariant, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if r.seen[msg] {
		return
	}
	r.seen[msg] = true
	r.violations = append(r.violations, history.Violation{Oracle: "kubelet", Invariant: invariant,
		Message: msg + " (" + invariant + ")", At: r.at, Seq: r.seq})
}

// Observe implements oracle.Oracle.
func (c *checker) Observe(v oracle.View, ev *history.Event) {
	k := v.Kubelet()
	if k == nil {
		return
	}
	c.at, c.seq = ev.At, ev.Seq
	switch ev.Kind {
	case history.LockReleasing:
		c.kube.lockReleasing(v, ev.Probe)
	case history.CallbackBegin, history.CallbackEnd:
		c.kube.callback(ev.Input)
	case history.Restarted:
		c.kube = newKubeletCheck(c.reporter)
	case history.Noted:
		c.noted(k, ev)
	}
}

func (c *checker) noted(k oracle.Kubelet, ev *history.Event) {
	switch n := ev.Note.(type) {
	case history.AdmissionBegins:
		c.kube.admissionBegins(k)
	case history.Admitted:
		c.kube.admitted(k, n.UID, n.Counted)
	case history.PhaseWritten:
		c.kube.phaseWritten(n.UID, n.Phase)
	case history.DeleteRequested:
		c.identity.deleteRequested(k, n.UID, n.Grace, ev.At)
	case history.Removed:
		if n.By == StatusManager {
			c.kube.deleted(n.UID)
		}
		c.identity.removed(k, n.UID, n.By, n.Forced, ev.At)
	case history.HousekeepingRestart:
		c.kube.restarted(k, n.UID)
	case history.SyncPodBegins:
		c.kube.syncPodBegins(k, n.UID)
	case history.ShutdownBegins: // the first, or the next after a cancellation
		c.kube.shutdownSnapshot = n.Active
		clear(c.kube.shutdownKilled)
	case history.ShutdownKill:
		c.kube.shutdownKill(n.UID, n.StatusFn)
	case history.ShutdownDone:
		c.kube.shutdownDone()
	case history.KubeletSettled:
		c.kube.settled(k)
	}
}

// StatusManager is the actor name (history.Removed.By) of the status
// manager's final delete: the one K3 judges.
const StatusManager = "status manager"

// Finish implements oracle.Oracle: every violation, in the order found.
func (c *checker) Finish(oracle.View, error) []history.Violation { return c.violations }

// terminalPhase: the pod's containers are done for good.
func terminalPhase(p v1.PodPhase) bool { return p == v1.PodSucceeded || p == v1.PodFailed }
