package world

import "github.com/podsim/podsim/plan"

// mark sets a coverage mark from the world's own actors (the kubelet-level
// situations the event stream does not show).
func (w *World) mark(name string) {
	if w.marks == nil {
		w.marks = map[string]bool{}
	}
	w.marks[name] = true
}

// Marks are the coverage marks the world's own actors set.
func (w *World) Marks() map[string]bool { return w.marks }

// Plan is the plan the world runs.
func (w *World) Plan() plan.Plan { return w.plan }

// Restarts counts the kubelet restarts so far.
func (w *World) Restarts() int { return w.epoch }

// Quiescing reports whether the inputs have stopped (the settle phase's
// last part: the daemons stop and the workers drain).
func (w *World) Quiescing() bool { return w.quiescing }
