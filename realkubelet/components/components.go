// Package components names the real kubelet components the driver can run
// around the real pod workers, and the set of them a run switches on
// (--real, RunOptions.Real).
package components

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
	Status   Component = "status"   // the status manager and the API server model (realkubelet/status.go)
	Shutdown Component = "shutdown" // the node shutdown manager
	Eviction Component = "eviction" // the eviction manager
	Restart  Component = "restart"  // the kubelet restart (realkubelet/restart.go)
)

// All lists every component name, in flag order.
var All = []Component{Status, Shutdown, Eviction, Restart}

// Set is a set of components switched off. The zero value runs every
// component that exists, so the driver's RunOptions{} is the default run.
type Set struct{ off map[Component]bool }

// On reports whether c runs.
func (s Set) On(c Component) bool { return !s.off[c] }

// Only returns the set in which exactly the named components run.
func Only(on ...Component) Set {
	s := Set{off: map[Component]bool{}}
	for _, c := range All {
		s.off[c] = true
	}
	for _, c := range on {
		delete(s.off, c)
	}
	return s
}

// String is the --real value that selects the set.
func (s Set) String() string {
	var on []string
	for _, c := range All {
		if s.On(c) {
			on = append(on, string(c))
		}
	}
	if len(on) == 0 {
		return "none"
	}
	return strings.Join(on, ",")
}

// Parse reads a --real value: a comma-separated list of
// component names, "all", or "none".
func Parse(v string) (Set, error) {
	switch v {
	case "all":
		return Set{}, nil
	case "none", "":
		return Only(), nil
	}
	var on []Component
	for _, name := range strings.Split(v, ",") {
		c := Component(strings.TrimSpace(name))
		known := false
		for _, k := range All {
			known = known || k == c
		}
		if !known {
			return Set{}, fmt.Errorf("--real: unknown component %q (want a comma-separated list of status, shutdown, eviction, restart, or all, or none)", name)
		}
		on = append(on, c)
	}
	return Only(on...), nil
}
