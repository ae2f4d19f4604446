package conform

import (
	"fmt"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/oracle"
)

// P5, the status manager holds and writes what the kubelet told it: the
// phase a pod's callbacks and admission give it (SyncPod's success:
// Running, or Succeeded when the pod completed; SyncTerminatedPod's:
// Failed unless already terminal; a rejection at admission: Failed; a
// kill's status function — eviction's, the node shutdown's — may make it
// Failed), and the phase it writes to the API is the one it holds. The
// kill a status function came with is not in the history, so after a
// SyncTerminatingPod of a pod such a kill was sent for, both outcomes are
// accepted. At the end, the status manager's phase and the API's are those
// the check followed.

// phases is a set of phases a pod's status may hold ("" none yet).
type phases []v1.PodPhase

func (s phases) has(p v1.PodPhase) bool { return slices.Contains(s, p) }

func (s phases) with(p v1.PodPhase) phases {
	if s.has(p) {
		return s
	}
	out := append(slices.Clone(s), p)
	slices.Sort(out)
	return out
}

// apply maps every phase of s through f.
func (s phases) apply(f func(v1.PodPhase) v1.PodPhase) phases {
	var out phases
	for _, p := range s {
		out = out.with(f(p))
	}
	return out
}

func terminal(p v1.PodPhase) bool { return p == v1.PodSucceeded || p == v1.PodFailed }

// statusModel is P5's state: the status manager's possible phases per pod
// (reset at a kubelet restart), the pods a kill with a status function was
// sent for, and the API phase each pod was last written.
type statusModel struct {
	held     map[types.UID]phases
	statusFn map[types.UID]bool
	api      map[types.UID]v1.PodPhase
	changed  map[types.UID]time.Duration // the last API change (a write, a delete)
}

func (s *statusModel) reset() {
	s.held, s.statusFn = map[types.UID]phases{}, map[types.UID]bool{}
}

func (s *statusModel) heldOf(uid types.UID) phases {
	if h, ok := s.held[uid]; ok {
		return h
	}
	return phases{""}
}

// status follows the events P5 reads on a target with kubelet k.
func (c *checker) status(k oracle.Kubelet, ev *history.Event) {
	s := &c.sm
	switch ev.Kind {
	case history.Restarted:
		s.reset()
	case history.Settled:
		if !c.kubeletSettled {
			c.violate("P5", "the run settled without the kubelet's settle note (the kubelet-level end checks never ran)")
		}
	case history.ClientCall:
		if u, ok := ev.Input.(ops.UpdatePod); ok && u.Type == ops.Kill && u.Kill.Evict {
			s.statusFn[types.UID(u.Pod.UID)] = true
		}
	case history.CallbackEnd:
		if end, ok := ev.Input.(ops.SyncEnd); ok && end.Outcome == ops.OK {
			c.callbackEnded(types.UID(end.UID), end)
		}
	case history.Noted:
		c.statusNoted(k, ev.Note)
	}
}

func (c *checker) callbackEnded(uid types.UID, end ops.SyncEnd) {
	s := &c.sm
	h := s.heldOf(uid)
	switch end.Fn {
	case ops.SyncPod:
		h = h.apply(func(p v1.PodPhase) v1.PodPhase {
			switch {
			case end.IsTerminal:
				return v1.PodSucceeded
			case terminal(p):
				return p
			}
			return v1.PodRunning
		})
	case ops.SyncTerminatedPod:
		h = h.apply(func(p v1.PodPhase) v1.PodPhase {
			if terminal(p) {
				return p
			}
			return v1.PodFailed
		})
	case ops.SyncTerminatingPod:
		if !s.statusFn[uid] {
			return
		}
		h = h.with(v1.PodFailed)
	default:
		return
	}
	s.held[uid] = h
}

func (c *checker) statusNoted(k oracle.Kubelet, n history.Note) {
	s := &c.sm
	switch n := n.(type) {
	case history.ShutdownKill:
		s.statusFn[n.UID] = true
	case history.Admitted:
		if !c.fits(c.first(n.UID), n.Counted) {
			s.held[n.UID] = phases{v1.PodFailed}
		}
	case history.PhaseWritten:
		if h := s.heldOf(n.UID); !h.has(n.Phase) {
			c.violate("P5", "the status manager wrote phase %s for pod %s, but it holds %v", n.Phase, n.UID, h)
		}
		s.held[n.UID], s.api[n.UID], s.changed[n.UID] = phases{n.Phase}, n.Phase, c.at
	case history.Removed:
		s.changed[n.UID] = c.at
	case history.KubeletSettled:
		c.kubeletSettled = true
		c.statusSettled(k)
	}
}

// statusSettled: the status manager holds one of the phases P5 followed,
// and every pod in the API shows the phase last written for it.
func (c *checker) statusSettled(k oracle.Kubelet) {
	for _, uid := range c.uids {
		p := k.Pod(uid)
		if h := c.sm.heldOf(uid); !h.has(p.StatusPhase) {
			c.violate("P5", "pod %s: the status manager holds phase %q at the end, want one of %v", uid, p.StatusPhase, h)
		}
		if p.InAPI && p.APIPhase != c.sm.api[uid] {
			c.violate("P5", "pod %s: phase %q in the API at the end, but %q was last written", uid, p.APIPhase,
				c.sm.api[uid])
		}
		c.echoSettled(k, uid, p)
		if p.Incarnation != c.incarnation[uid] {
			c.violate("P4", "pod %s: the kubelet has it as pod object %d, but it is the %d-th created", uid,
				p.Incarnation, c.incarnation[uid])
		}
	}
}

// echoSettled is P9, the config watch: at the end every API change of a
// pod in config has come back to the config source: its phase in config
// is the API's, and a pod object gone from the API has left config. A
// change made too near the end is not judged: when the settle phase runs
// its full length, the status manager stops at the quiesce with echoes
// still due, and the end comes after at most the daemons' last period and
// the drain (echoWindow).
func (c *checker) echoSettled(k oracle.Kubelet, uid types.UID, p oracle.KubeletPod) {
	if !k.APIServer() || c.first(uid).Static || !p.InConfig {
		return
	}
	if last, ok := c.sm.changed[uid]; ok && c.at-last < c.echoWindow() {
		return
	}
	switch {
	case !p.InAPI:
		c.violate("P9", "pod %s left the API, but is still in config at the end", uid)
	case p.APIPhase != "" && p.Phase != p.APIPhase:
		c.violate("P9", "pod %s: phase %q in the API, %q in config at the end", uid, p.APIPhase, p.Phase)
	}
}

func (s phases) String() string { return fmt.Sprint([]v1.PodPhase(s)) }

// echoWindow bounds how long before the end an API change may still be
// waiting for its echo: the echo lag, a status-manager tick, a
// housekeeping period for the daemons to stop, the drain (5 × the longest
// callback delay, at least 5 s), and a second of slack.
func (c *checker) echoWindow() time.Duration {
	lag := time.Duration(0)
	if c.plan.Node != nil {
		lag = c.plan.Node.EchoLag
	}
	return lag + time.Second + 2*time.Second + 5*max(c.plan.Faults.MaxDelay, time.Second) + time.Second
}
