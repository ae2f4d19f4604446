package world

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

// InputShapes lists the input shapes the run drew (shapes.Dimensions),
// sorted.
func (w *World) InputShapes() []string { return w.shapes.Sorted() }
