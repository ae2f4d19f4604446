// Package conform is the plan-conformance check (P1–P4): the simulated
// kubelet's actors model kubelet components, so what the plan asked for
// must show in the history as the component the actor models would do it.
// It reads the plan, the event stream and the target's View; it knows no
// world and no target. A target that does not bracket its plan actions with
// history.ActionBegins and ActionDone notes is not judged.
//
//	P1  every plan action reaches the pod workers as the call the config
//	    source or the kubelet makes for it, with what the action carries
//	    (type, UID, a new pod version, the target, the kill options, the
//	    deletion grace, the terminal phase), and nothing when the kubelet
//	    would send nothing (a pod it never admitted, an API refusal);
//	P2  admission decides as its stated rule says: a pod is admitted iff
//	    its requests plus those of the pods admission counted fit the
//	    node, and a create follows an admission, never a rejection;
//	P3  housekeeping calls SyncKnownPods with the desired pods (the pods
//	    in config), and re-creates the desired, admitted, active pods the
//	    pod workers no longer know;
//	P4  a kubelet restart re-adds the pods in config in creation order,
//	    each through admission or as a create.
package conform

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/oracle"
	"github.com/podsim/podsim/plan"
)

// New returns the plan-conformance oracle for a run of p. One serves the
// whole run: a kubelet restart is part of what it judges.
func New(p plan.Plan) oracle.Oracle {
	c := &checker{clients: history.NewLookup[string, *client](),
		seen:   map[string]bool{},
		sm:     statusModel{api: map[types.UID]v1.PodPhase{}, changed: map[types.UID]time.Duration{}},
		actors: map[string]*actor{}, evictGraces: map[types.UID][]int64{}, shutdownReturned: map[types.UID]time.Duration{},
		reapDue: map[types.UID]time.Duration{}, incarnation: map[types.UID]int{}}
	c.sm.reset()
	c.reset(p)
	return c
}

// Reuse returns prev, an oracle of New or Reuse whose run is over, as a new
// oracle for a run of p: its maps and buffers emptied and kept, every
// other field zero, so it judges exactly as New(p) would (a lane's
// consecutive seeds reuse one, run.Lane). Any other prev: New(p).
func Reuse(prev oracle.Oracle, p plan.Plan) oracle.Oracle {
	c, ok := prev.(*checker)
	if !ok {
		return New(p)
	}
	c.clients.Reset()
	clear(c.seen)
	c.hk.Reset()
	clear(c.actors)
	clear(c.evictGraces)
	clear(c.shutdownReturned)
	clear(c.reapDue)
	clear(c.incarnation)
	clear(c.sm.held)
	clear(c.sm.statusFn)
	clear(c.sm.api)
	clear(c.sm.changed)
	*c = checker{queryBuf: c.queryBuf[:0], gotBuf: c.gotBuf[:0], clients: c.clients, uids: c.uids[:0],
		firsts: c.firsts, versions: c.versions, created: c.created, hk: c.hk, freeHK: c.freeHK,
		freeAction: c.freeAction, incarnation: c.incarnation, sm: c.sm, actors: c.actors, evictGraces: c.evictGraces,
		shutdownReturned: c.shutdownReturned, reapDue: c.reapDue, seen: c.seen,
		clientNames: c.clientNames, counts: c.counts, clientRecs: c.clientRecs, nameList: c.nameList[:0]}
	c.reset(p)
	return c
}

// client is one plan client: its actions in plan order, how many it has
// begun, and the one in progress.
type client struct {
	actions []plan.Action
	begun   int
	cur     *action
}

// action is one plan action in progress: what the target showed of its pod
// when it began, and the calls and notes of its goroutine since.
type action struct {
	a        plan.Action
	pre      pre
	calls    []call
	notes    []history.Note
	restarts int // Restarted events before it began (in any goroutine)
	at       time.Duration
	version  int // the highest version of its pod handed to the pod workers before it
	// incarnation is the creation order of every pod, as it began (a
	// restart re-adds in this order).
	incarnation map[types.UID]int
	phases      map[types.UID]v1.PodPhase // the config phase of every pod, as a restart began
	// inShutdown: the pods first added during the node shutdown in force
	// as a restart began, which the new kubelet may reject (P4).
	inShutdown map[types.UID]bool
	// admissionUnbegun: an admission decided without AdmissionBegins.
	admissionUnbegun bool
	ups              []ops.UpdatePod // updates' list, reused
}

// newAction is the record of action a beginning at at: the record of an
// action judged before (freeAction), emptied, when there is one.
func (c *checker) newAction(a plan.Action, pre pre, at time.Duration) *action {
	x := c.freeAction
	if x == nil {
		return &action{a: a, pre: pre, restarts: c.restarts, at: at, version: c.version(a.UID),
			calls: make([]call, 0, actionCalls)}
	}
	c.freeAction = nil
	clear(x.calls)
	clear(x.notes)
	*x = action{a: a, pre: pre, restarts: c.restarts, at: at, version: c.version(a.UID), calls: x.calls[:0],
		notes: x.notes[:0], ups: x.ups[:0]}
	return x
}

// actionCalls is room for the calls of most actions (a Query action makes
// seven), made at once instead of grown.
const actionCalls = 8

// call is one client call the action made, with its output once returned.
type call struct {
	id       int
	in       ops.Input
	out      ops.Output
	returned bool
}

type checker struct {
	plan plan.Plan
	// queryBuf and gotBuf are query's lists, reused from action to action.
	queryBuf, gotBuf []ops.Query
	clients          *history.Lookup[string, *client]
	// clientNames are the plan clients' goroutine names by index (clientName),
	// counts reset's buffer, and clientRecs the client records reset made,
	// in order: the next run's reset empties and reuses them.
	clientNames []string
	counts      []int
	clientRecs  []*client
	nameList    []string    // Finish's buffer (sortedNames)
	uids        []types.UID // every UID the plan names, sorted
	// firsts are, by index in uids, the action the target first saw the UID
	// with (its pod's shape; nil: none yet), held in its client's actions
	// (firstOf).
	firsts []*plan.Action
	// versions and created are by index in uids (those of UIDs the plan
	// does not name are never read): the highest pod version handed to the
	// pod workers, and whether a create reached the current pod workers
	// (admitted).
	versions       []int
	created        []bool
	restarts       int                                // Restarted events so far
	hk             history.Few[string, *housekeeping] // by goroutine: the last SyncKnownPods and the creates after it
	freeHK         *housekeeping                      // a pass's record judged, for the next (newHousekeeping)
	freeAction     *action                            // an action's record judged, for the next (newAction)
	adds           int                                // new pod objects created so far (fresh ADDs)
	incarnation    map[types.UID]int                  // the creation order of each pod's current object
	kubeletSettled bool                               // the kubelet's settle note was seen (P5)
	sm             statusModel                        // P5
	actors         map[string]*actor                  // by goroutine: eviction and shutdown-kill actors (P6, P7)
	// evictGraces are, by pod, the graces of the Evict actions whose actor
	// has not begun yet.
	evictGraces      map[types.UID][]int64
	sd               *shutdownRun                // the node shutdown of this kubelet process (P7)
	shutdownReturned map[types.UID]time.Duration // when each shutdown kill's wait returned
	reapDue          map[types.UID]time.Duration // the grace reaper's deadlines (P8)
	violations       []history.Violation
	seen             map[string]bool
	// at and seq are the last read event's (Kinds): violations are
	// found after it. Finish's follow the run's last event, Settled or a
	// drain's note, both read, as nothing else follows Settled; a run that
	// ended before Settled has an error, and Finish then judges nothing.
	at  time.Duration
	seq int64
}

func (c *checker) violate(invariant, format string, args ...any) {
	msg := fmt.Sprintf(format, args...) + " (" + invariant + ")"
	if c.seen[msg] {
		return
	}
	c.seen[msg] = true
	c.violations = append(c.violations, history.Violation{Oracle: "conform", Invariant: invariant, Message: msg,
		At: c.at, Seq: c.seq})
}

// Kinds implements oracle.KindFilter: every kind but those Observe
// returns at first.
func (c *checker) Kinds() oracle.Kinds {
	return ^oracle.KindsOf(history.LockAcquired, history.LockReleasing, history.CallbackBegin, history.Fired)
}

// Observe implements oracle.Oracle.
func (c *checker) Observe(v oracle.View, ev *history.Event) {
	switch ev.Kind {
	case history.LockAcquired, history.LockReleasing, history.CallbackBegin, history.Fired:
		return // none of P1–P9 follows these (most of the stream): Kinds leaves them out
	}
	c.at, c.seq = ev.At, ev.Seq
	k := v.Kubelet() // read once: P5, the actors and the reaper read it
	if k != nil {
		c.status(k, ev)
	}
	if c.actorsRead(k, ev) {
		c.actorEvent(k, ev)
	}
	switch ev.Kind {
	case history.Noted:
		c.shutdownNoted(k, ev)
		if k != nil {
			c.reaperNoted(k, ev)
		}
	case history.Restarted:
		c.restarts++
		clear(c.created)
		c.shutdownReturned = map[types.UID]time.Duration{}
		// A shutdown asked of the old kubelet, begun or not, ends with it
		// (the signal reached that process, not the new one).
		c.sd = nil
	case history.ClientCall:
		c.housekeepingCall(v, ev) // and an update's version and create
	case history.ClientReturn:
		c.housekeepingReturn(v, ev)
		if len(c.actors) > 0 {
			c.shutdownReturn(ev) // a shutdown-kill actor's, which is in actors
		}
	}
	if !strings.HasPrefix(ev.Goroutine, clientPrefix) {
		return // not a plan client's (every key of clients has the prefix)
	}
	cl, _ := c.clients.Get(ev.Goroutine)
	if cl == nil {
		return
	}
	switch ev.Kind {
	case history.Noted:
		c.noted(v, cl, ev)
	case history.ClientCall:
		if cl.cur != nil {
			cl.cur.calls = append(cl.cur.calls, call{id: ev.ID, in: ev.Input})
		}
	case history.ClientReturn:
		if cl.cur != nil {
			for i := range cl.cur.calls {
				if cl.cur.calls[i].id == ev.ID {
					cl.cur.calls[i].out, cl.cur.calls[i].returned = ev.Output, true
				}
			}
		}
	}
}

// version is the highest version of uid's pod handed to the pod workers.
func (c *checker) version(uid types.UID) int {
	if i := c.uidIndex(uid); i >= 0 {
		return c.versions[i]
	}
	return 0
}

func (c *checker) noted(v oracle.View, cl *client, ev *history.Event) {
	switch ev.Note.(type) {
	case history.ActionBegins:
		if cl.cur != nil || cl.begun >= len(cl.actions) {
			c.violate("P1", "%s began an action the plan does not give it (%d of %d begun)", ev.Goroutine,
				cl.begun+1, len(cl.actions))
			return
		}
		a, ap := cl.actions[cl.begun], &cl.actions[cl.begun]
		cl.begun++
		cl.cur = c.newAction(a, c.preOf(v, a), ev.At)
		if a.Kind == plan.Restart && v.Kubelet() != nil {
			k := v.Kubelet()
			cl.cur.incarnation, cl.cur.phases, cl.cur.inShutdown = maps.Clone(c.incarnation), map[types.UID]v1.PodPhase{}, map[types.UID]bool{}
			for _, uid := range c.uids {
				p := k.Pod(uid)
				cl.cur.phases[uid], cl.cur.inShutdown[uid] = p.Phase, p.AddedInShutdown && k.ShuttingDown()
			}
		}
		if a.At > ev.At {
			c.violate("P1", "%s: action %v began at %v, before its time", ev.Goroutine, a, ev.At)
		}
		c.actionBegins(a, cl.cur.pre)
		if !cl.cur.pre.refused && a.UID != "" {
			if i := c.uidIndex(a.UID); i >= 0 && c.firsts[i] == nil {
				c.firsts[i] = ap
			}
			if pre := cl.cur.pre; a.Kind == plan.Finish && pre.inAPI {
				c.sm.api[a.UID] = v1.PodPhase(a.Terminal) // the containers' exit, published
			}
			if a.Kind == plan.Create && !cl.cur.pre.inConfig {
				c.adds++ // a new pod object: its creation order
				c.incarnation[a.UID] = c.adds
			}
			if pre := cl.cur.pre; a.Kind == plan.Create && pre.kube && !pre.inConfig {
				// A new pod object: the status manager forgets the old
				// one's status, the API server its phase.
				delete(c.sm.held, a.UID)
				if pre.apiServer && !c.shapeOf(a).Static {
					c.sm.api[a.UID] = ""
				}
			}
		}
	case history.ActionDone:
		if cl.cur == nil {
			c.violate("P1", "%s ended an action it had not begun", ev.Goroutine)
			return
		}
		cur := cl.cur
		cl.cur = nil
		if cur.restarts == c.restarts || cur.a.Kind == plan.Restart {
			c.judge(cur)
		}
		if cur.a.Kind == plan.SyncKnown {
			c.housekeepingDone(ev.Goroutine)
		}
		c.freeAction = cur // judged: nothing holds it any more
	default:
		if cl.cur != nil {
			cl.cur.notes = append(cl.cur.notes, ev.Note)
		}
	}
}

// Finish implements oracle.Oracle: every client must have carried out
// every action of its plan (unless the run failed before).
func (c *checker) Finish(_ oracle.View, runErr error) []history.Violation {
	if runErr == nil {
		// The loops' bodies neither name nor sort: one buffer serves all three.
		c.nameList = append(c.nameList[:0], c.hk.Keys()...)
		slices.Sort(c.nameList)
		for _, g := range c.nameList {
			c.housekeepingDone(g)
		}
		c.nameList = sortedNames(c.nameList, c.actors)
		for _, g := range c.nameList {
			if a := c.actors[g]; a.evict && a.restarts == c.restarts {
				c.judgeEviction(g, a)
			}
		}
		c.shutdownFinish()
		c.nameList = sortedNames(c.nameList, c.clients.Map())
		for _, name := range c.nameList {
			cl, _ := c.clients.Get(name)
			if cl.begun > 0 && cl.begun < len(cl.actions) || cl.cur != nil {
				c.violate("P1", "%s carried out %d of its %d actions", name, cl.begun, len(cl.actions))
			}
		}
	}
	return c.violations
}

// actionBegins notes what the actors owe for an action that begins: an
// Evict's grace for its actor (P6), a Shutdown (P7), a pod object leaving
// the API (P8).
func (c *checker) actionBegins(a plan.Action, p pre) {
	switch a.Kind {
	case plan.Evict:
		c.evictGraces[a.UID] = append(c.evictGraces[a.UID], a.Grace)
	case plan.Shutdown:
		c.shutdownAction(p)
	case plan.ShutdownCancel:
		c.cancelAction(p)
	case plan.Remove, plan.Vanish:
		c.leftAPI(a.UID)
	}
}
