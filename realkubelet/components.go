package realkubelet

import (
	"fmt"
	"strings"
)

// Component names a real kubelet component the driver can run around the
// real pod workers (docs/real-kubelet.md, "What is real").
type Component string

// The components --real switches. A component is on by default once it
// exists; switching one off (to localise a finding) puts the driver's
// stand-in back: no status manager and API server (the pod workers alone),
// the plan's Shutdown skipped, Evict as a bare killPodNow(evict=true),
// Restart skipped (the same pod workers go on).
const (
	StatusComponent   Component = "status"   // the status manager and the API server model (statusmgr.go)
	ShutdownComponent Component = "shutdown" // the node shutdown manager
	EvictionComponent Component = "eviction" // the eviction manager
	RestartComponent  Component = "restart"  // the kubelet restart (restart.go)
)

// AllComponents lists every component name, in flag order.
var AllComponents = []Component{StatusComponent, ShutdownComponent, EvictionComponent, RestartComponent}

// Components is a set of components switched off. The zero value runs
// every component that exists, so RunOptions{} is the default run.
type Components struct{ off map[Component]bool }

// On reports whether c runs.
func (s Components) On(c Component) bool { return !s.off[c] }

// Only returns the set in which exactly the named components run.
func Only(on ...Component) Components {
	s := Components{off: map[Component]bool{}}
	for _, c := range AllComponents {
		s.off[c] = true
	}
	for _, c := range on {
		delete(s.off, c)
	}
	return s
}

// String is the --real value that selects the set.
func (s Components) String() string {
	var on []string
	for _, c := range AllComponents {
		if s.On(c) {
			on = append(on, string(c))
		}
	}
	if len(on) == 0 {
		return "none"
	}
	return strings.Join(on, ",")
}

// ParseComponents reads a --real value: a comma-separated list of
// component names, "all", or "none".
func ParseComponents(v string) (Components, error) {
	switch v {
	case "all":
		return Components{}, nil
	case "none", "":
		return Only(), nil
	}
	var on []Component
	for _, name := range strings.Split(v, ",") {
		c := Component(strings.TrimSpace(name))
		known := false
		for _, k := range AllComponents {
			known = known || k == c
		}
		if !known {
			return Components{}, fmt.Errorf("--real: unknown component %q (want a comma-separated list of status, shutdown, eviction, restart, or all, or none)", name)
		}
		on = append(on, c)
	}
	return Only(on...), nil
}
