// Package script is the real-kubelet driver's step vocabulary: a Move is
// one driver step as data (a plan action, the release of a parked sync
// callback, a work-queue tick, a held wake-up, a delivered kill, a status
// pass), so a run is a script that can be printed, replayed byte for byte
// and shrunk; Parse and Format read and write its text.
package script

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/realdriver"
	"github.com/podsim/podsim/realkubelet/syncgate"
)

// MoveKind is what one driver step does.
type MoveKind uint8

// Driver steps.
const (
	// MoveAction performs a plan action (plan.Action) as the kubelet
	// would: config delivery, kills, housekeeping (sync-known), queries.
	MoveAction MoveKind = iota
	// MoveRelease lets one parked sync callback return with an outcome.
	MoveRelease
	// MoveTick is one sync-loop tick: every UID the workers enqueued
	// (retry or resync) gets UpdatePod(sync) if it is still in config
	// (getPodsToSync, SPEC §1.8).
	MoveTick
	// MoveWake lets one held worker wake-up through (realkubelet/wakes.go).
	MoveWake
	// MoveHoldWakes, only as a script's first move, holds every worker
	// wake-up at a gate from then on (realkubelet/wakes.go).
	MoveHoldWakes
	// MoveDeliver performs the parked kill a real kubelet manager sent
	// for the UID through killPodNow (realkubelet/actors.go, killgate).
	MoveDeliver
	// MoveStatusSync and MoveStatusResync are one pass of the real status
	// manager's sync loop: the pass a status change triggers, and the
	// periodic one (realkubelet/status.go); MoveEcho delivers the API changes to
	// config (the watch). Without the status component they cannot happen.
	MoveStatusSync
	MoveStatusResync
	MoveEcho
	// MoveLogindRestart, only among a script's first moves (with
	// hold-wakes), makes logind restart under every node shutdown manager
	// of the run before its shutdown event (realkubelet/shutdown,
	// restart.go; a kubelet from v1.37).
	MoveLogindRestart
	// MoveLogindDelay, only among a script's first moves, makes logind's
	// inhibit delay start short of the node shutdown managers' groups, so
	// each overrides it (realkubelet/shutdown, delay.go).
	MoveLogindDelay
)

// bareMoves are the moves without arguments, by script word.
var bareMoves = map[string]MoveKind{"tick": MoveTick, "hold-wakes": MoveHoldWakes,
	"status-sync": MoveStatusSync, "status-resync": MoveStatusResync, "echo": MoveEcho, "logind-restart": MoveLogindRestart,
	"logind-delay": MoveLogindDelay}

// Move is one driver step: data, so a run is a script that can be printed,
// replayed byte for byte and shrunk.
type Move struct {
	Kind    MoveKind
	Action  plan.Action      // MoveAction
	UID     types.UID        // MoveRelease, MoveWake, MoveDeliver
	Outcome syncgate.Outcome // MoveRelease
	// Groups are the node shutdown manager's priority groups, for a
	// Shutdown action (the plan's Node.ShutdownGroups).
	Groups []plan.ShutdownGroup
	// Order is a status pass's order of its pods' syncs (MoveStatusSync,
	// MoveStatusResync), drawn from the seed when the order can matter;
	// pods it does not name follow in UID order (realkubelet/status).
	Order []types.UID
	// Fault is a logind fault move's variant: where the manager's first
	// reconnect after logind's restart fails (MoveLogindRestart: one of
	// LogindFails, "" for the first), or when logind applies the delay
	// override (MoveLogindDelay: one of LogindApplies, "" for the first).
	Fault string
}

// LogindApplies are when logind applies the inhibit-delay override
// (MoveLogindDelay): once it reloads, or a second later ("slow"). A
// script line names the second: "logind-delay apply=slow".
var LogindApplies = []string{"reload", "slow"}

// LogindFails are the points a logind-restart's first reconnect can fail
// at (the fake logind's call that errs: MonitorShutdown, after the
// inhibit lock was taken; CurrentInhibitDelay; InhibitShutdown), or none.
// A script line names any but the first: "logind-restart fail=delay".
var LogindFails = []string{"monitor", "delay", "inhibit", "none"}

// String is the move's script line (ParseMove reads it back).
func (m Move) String() string {
	switch m.Kind {
	case MoveRelease:
		return fmt.Sprintf("release %s %s", m.UID, m.Outcome)
	case MoveTick:
		return "tick"
	case MoveWake:
		return fmt.Sprintf("wake %s", m.UID)
	case MoveDeliver:
		return fmt.Sprintf("deliver %s", m.UID)
	case MoveLogindRestart:
		if m.Fault != "" && m.Fault != LogindFails[0] {
			return "logind-restart fail=" + m.Fault
		}
		return "logind-restart"
	case MoveLogindDelay:
		if m.Fault != "" && m.Fault != LogindApplies[0] {
			return "logind-delay apply=" + m.Fault
		}
		return "logind-delay"
	case MoveHoldWakes, MoveStatusSync, MoveStatusResync, MoveEcho:
		for word, k := range bareMoves {
			if k == m.Kind && len(m.Order) > 0 {
				return word + " order=" + strings.Join(uidStrings(m.Order), ",")
			}
			if k == m.Kind {
				return word
			}
		}
	}
	a := m.Action
	var b strings.Builder
	b.WriteString(a.Kind.String())
	if a.UID != "" {
		fmt.Fprintf(&b, " %s", a.UID)
	}
	if a.Static {
		fmt.Fprintf(&b, " static=%s", a.Name)
	} else if a.Name != "" && a.Name != "pod-"+string(a.UID) {
		// An API pod's own name (api-shapes, swarm: two pods may share
		// one), else "pod-<uid>" (plan.Action.PodName).
		fmt.Fprintf(&b, " name=%s", a.Name)
	}
	if a.SpecGrace != 0 && a.SpecGrace != 30 {
		fmt.Fprintf(&b, " spec-grace=%d", a.SpecGrace)
	}
	if a.Grace >= 0 && (a.Kind == plan.Delete || a.Kind == plan.Kill || a.Kind == plan.KillNow || a.Kind == plan.Evict) {
		fmt.Fprintf(&b, " grace=%d", a.Grace)
	}
	if a.Evict {
		b.WriteString(" evict")
	}
	if a.Kind == plan.Finish {
		fmt.Fprintf(&b, " phase=%s", a.Terminal)
	}
	if a.Kind == plan.Create && a.Priority != 0 {
		fmt.Fprintf(&b, " prio=%d", a.Priority)
	}
	for i, g := range m.Groups {
		sep := ","
		if i == 0 {
			sep = " groups="
		}
		fmt.Fprintf(&b, "%s%d:%d", sep, g.Priority, g.Grace)
	}
	return b.String()
}

// ParseMove reads one script line (Move.String's format).
func ParseMove(line string) (Move, error) {
	f := strings.Fields(line)
	if len(f) == 0 {
		return Move{}, fmt.Errorf("empty move")
	}
	if k, ok := bareMoves[f[0]]; ok {
		return parseBare(line, k, f)
	}
	switch f[0] {
	case "wake", "deliver":
		if len(f) != 2 {
			return Move{}, fmt.Errorf("%q: want %s UID", line, f[0])
		}
		kind := MoveWake
		if f[0] == "deliver" {
			kind = MoveDeliver
		}
		return Move{Kind: kind, UID: types.UID(f[1])}, nil
	case "release":
		if len(f) != 3 {
			return Move{}, fmt.Errorf("%q: want release UID OUTCOME", line)
		}
		o, err := syncgate.ParseOutcome(f[2])
		if err != nil {
			return Move{}, fmt.Errorf("%q: %v", line, err)
		}
		return Move{Kind: MoveRelease, UID: types.UID(f[1]), Outcome: o}, nil
	}
	kind, ok := plan.ActionKindNamed(f[0]) // the kubelet's actions: not the VK ones
	if !ok || kind.IsVK() {
		return Move{}, fmt.Errorf("%q: unknown move %q", line, f[0])
	}
	a := plan.Action{Kind: kind, Grace: -1, SpecGrace: 30}
	m := Move{Kind: MoveAction}
	for i, w := range f[1:] {
		var err error
		if g, ok := strings.CutPrefix(w, "groups="); ok && kind == plan.Shutdown {
			m.Groups, err = parseGroups(g)
		} else {
			err = parseActionWord(&a, i, w)
		}
		if err != nil {
			return Move{}, fmt.Errorf("%q: %v", line, err)
		}
	}
	if kind == plan.Finish && a.Terminal == "" {
		a.Terminal = "Succeeded"
	}
	m.Action = a
	return m, nil
}

// parseGroups reads "PRIO:GRACE,PRIO:GRACE".
func parseGroups(v string) ([]plan.ShutdownGroup, error) {
	var out []plan.ShutdownGroup
	for _, g := range strings.Split(v, ",") {
		p, s, ok := strings.Cut(g, ":")
		prio, err1 := strconv.ParseInt(p, 10, 32)
		grace, err2 := strconv.ParseInt(s, 10, 64)
		if !ok || err1 != nil || err2 != nil || grace < 0 {
			return nil, fmt.Errorf("groups: want PRIORITY:GRACE[,...], got %q", v)
		}
		out = append(out, plan.ShutdownGroup{Priority: int32(prio), Grace: grace})
	}
	return out, nil
}

// PlanMove is the move of the plan's action i; a Shutdown carries the
// node's shutdown groups.
func PlanMove(p plan.Plan, i int) Move {
	m := Move{Kind: MoveAction, Action: p.Actions[i]}
	if m.Action.Kind == plan.Shutdown && p.Node != nil {
		m.Groups = p.Node.ShutdownGroups
	}
	return m
}

func parseActionWord(a *plan.Action, i int, w string) error {
	key, val, hasVal := strings.Cut(w, "=")
	switch {
	case i == 0 && !hasVal && w != "evict":
		a.UID = types.UID(w)
	case key == "static" && hasVal:
		a.Static, a.Name = true, val
	case key == "name" && val != "":
		a.Name = val
	case key == "evict" && !hasVal:
		a.Evict = true
	case key == "phase" && (val == "Succeeded" || val == "Failed"):
		a.Terminal = val
	case key == "prio" && hasVal:
		n, err := strconv.ParseInt(val, 10, 32)
		if err != nil {
			return fmt.Errorf("prio: want an integer, got %q", val)
		}
		a.Priority = int32(n)
	case key == "grace" || key == "spec-grace":
		n, err := strconv.ParseInt(val, 10, 64)
		if err != nil || n < 0 {
			return fmt.Errorf("%s: want a non-negative integer, got %q", key, val)
		}
		if key == "grace" {
			a.Grace = n
		} else {
			a.SpecGrace = n
		}
	default:
		return fmt.Errorf("unknown word %q", w)
	}
	return nil
}

// Parse reads a script (realdriver.ParseScript): one move per line, #
// comments, "expect CLASS" lines returned apart.
func Parse(text string) ([]Move, []string, error) {
	return realdriver.ParseScript(text, ParseMove)
}

// Format is the script of moves, one per line.
func Format(moves []Move) string { return realdriver.FormatScript(moves) }

// parseBare reads a move without arguments, but a status pass's order.
func parseBare(line string, k MoveKind, f []string) (Move, error) {
	m := Move{Kind: k}
	if len(f) == 1 {
		return m, nil
	}
	if fail, ok := strings.CutPrefix(f[1], "fail="); ok && k == MoveLogindRestart && len(f) == 2 {
		if !slices.Contains(LogindFails, fail) {
			return Move{}, fmt.Errorf("%q: fail=%s: want one of %s", line, fail, strings.Join(LogindFails, ", "))
		}
		m.Fault = fail
		return m, nil
	}
	if apply, ok := strings.CutPrefix(f[1], "apply="); ok && k == MoveLogindDelay && len(f) == 2 {
		if !slices.Contains(LogindApplies, apply) {
			return Move{}, fmt.Errorf("%q: apply=%s: want one of %s", line, apply, strings.Join(LogindApplies, ", "))
		}
		m.Fault = apply
		return m, nil
	}
	order, ok := strings.CutPrefix(f[1], "order=")
	if len(f) != 2 || !ok || order == "" || (k != MoveStatusSync && k != MoveStatusResync) {
		return Move{}, fmt.Errorf("%q: %s takes no arguments but a status pass's order=UID,… logind-restart's fail=POINT or logind-delay's apply=WHEN", line, f[0])
	}
	for _, u := range strings.Split(order, ",") {
		if u == "" || slices.Contains(m.Order, types.UID(u)) {
			return Move{}, fmt.Errorf("%q: order names an empty or repeated UID", line)
		}
		m.Order = append(m.Order, types.UID(u))
	}
	return m, nil
}

func uidStrings(uids []types.UID) []string {
	out := make([]string, len(uids))
	for i, u := range uids {
		out[i] = string(u)
	}
	return out
}
