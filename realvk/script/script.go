// Package script is the real virtual-kubelet driver's step vocabulary: a
// Move is one driver step as data (a VK plan action, the release of a
// parked call, a watch event handed to the informer, a handler run, a
// provider notification, a sleep, the workers per queue), so a run is a
// script that can be printed, replayed byte for byte and shrunk; Parse and
// Format read and write its text.
package script

import (
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/realdriver"
	"github.com/podsim/podsim/realvk/callgate"
)

// MoveKind is what one driver step does.
type MoveKind uint8

// Driver steps.
const (
	// MoveAction is a world action (Action): a client of the API server,
	// the provider's own change, or the controller's start, stop or crash.
	MoveAction MoveKind = iota
	// MoveRelease lets one parked call return with an outcome.
	MoveRelease
	// MoveWatch hands the next API event to the informer's watch.
	MoveWatch
	// MoveEvent runs the oldest queued informer event in the controller's
	// handler.
	MoveEvent
	// MoveNotify calls the controller's NotifyPods callback with a backend
	// pod whose status changed.
	MoveNotify
	// MoveSleep lets the driver's SleepDuration of fake time pass.
	MoveSleep
	// MoveWorkers, only before the controller first starts, sets Run's
	// workers per queue (the plan's VK.Workers).
	MoveWorkers
)

// Move is one driver step.
type Move struct {
	Kind    MoveKind
	Action  plan.Action // MoveAction: a VK plan action
	Label   string      // MoveRelease: the call's label; MoveNotify: the pod key
	Outcome callgate.Outcome
	N       int // MoveWorkers
}

// String is the move's script line (ParseMove reads it back).
func (m Move) String() string {
	switch m.Kind {
	case MoveRelease:
		return fmt.Sprintf("release %s %s", m.Label, m.Outcome)
	case MoveWatch:
		return "watch"
	case MoveEvent:
		return "event"
	case MoveNotify:
		return "notify " + m.Label
	case MoveSleep:
		return "sleep"
	case MoveWorkers:
		return fmt.Sprintf("workers %d", m.N)
	}
	return FormatAction(m.Action)
}

// FormatAction writes a VK action in the plan's words (plan/vk.go).
func FormatAction(a plan.Action) string {
	s := a.Kind.String()
	if a.UID != "" {
		s += " uid=" + string(a.UID)
	}
	if a.Kind == plan.VKCreate || a.Kind == plan.VKDelete {
		s += " name=" + a.PodName()
	}
	if a.Kind == plan.VKDelete {
		s += fmt.Sprintf(" grace=%d", a.Grace)
	}
	if a.Kind == plan.VKStatus && a.Terminal != "" {
		s += " phase=" + a.Terminal
	}
	return s
}

// ParseMove reads one script line.
func ParseMove(line string) (Move, error) {
	f := strings.Fields(line)
	if len(f) == 0 {
		return Move{}, fmt.Errorf("empty move")
	}
	simple := map[string]MoveKind{"watch": MoveWatch, "event": MoveEvent, "sleep": MoveSleep}
	if k, ok := simple[f[0]]; ok {
		if len(f) != 1 {
			return Move{}, fmt.Errorf("%q: %s takes no arguments", line, f[0])
		}
		return Move{Kind: k}, nil
	}
	switch f[0] {
	case "release":
		if len(f) != 3 {
			return Move{}, fmt.Errorf("%q: want release LABEL OUTCOME", line)
		}
		o, err := callgate.ParseOutcome(f[2])
		if err != nil {
			return Move{}, fmt.Errorf("%q: %v", line, err)
		}
		return Move{Kind: MoveRelease, Label: f[1], Outcome: o}, nil
	case "workers":
		n, err := strconv.Atoi(strings.Join(f[1:], " "))
		if len(f) != 2 || err != nil || n < 1 {
			return Move{}, fmt.Errorf("%q: want workers N (N ≥ 1)", line)
		}
		return Move{Kind: MoveWorkers, N: n}, nil
	case "notify":
		if len(f) != 2 {
			return Move{}, fmt.Errorf("%q: want notify NAMESPACE/NAME", line)
		}
		return Move{Kind: MoveNotify, Label: f[1]}, nil
	}
	a, err := parseAction(f)
	if err != nil {
		return Move{}, fmt.Errorf("%q: %v", line, err)
	}
	return Move{Kind: MoveAction, Action: a}, nil
}

func parseAction(f []string) (plan.Action, error) {
	kind, ok := plan.ActionKindNamed(f[0])
	if !ok || !kind.IsVK() {
		return plan.Action{}, fmt.Errorf("unknown move %q", f[0])
	}
	a := plan.Action{Kind: kind, Grace: -1}
	for _, w := range f[1:] {
		key, val, _ := strings.Cut(w, "=")
		switch key {
		case "uid":
			a.UID = types.UID(val)
		case "name":
			a.Name = val
		case "phase":
			a.Terminal = val
		case "grace":
			n, err := strconv.ParseInt(val, 10, 64)
			if err != nil || n < -1 {
				return a, fmt.Errorf("grace: want an integer ≥ -1, got %q", val)
			}
			a.Grace = n
		default:
			return a, fmt.Errorf("unknown word %q", w)
		}
	}
	return a, nil
}

// Parse reads a script (realdriver.ParseScript): one move per
// line, # comments, "expect CLASS" lines returned apart.
func Parse(text string) ([]Move, []string, error) {
	return realdriver.ParseScript(text, ParseMove)
}

// Format is the script of moves, one per line.
func Format(moves []Move) string { return realdriver.FormatScript(moves) }
