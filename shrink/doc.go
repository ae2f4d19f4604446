// Package shrink minimises a failing run.Case: fewer and simpler actions,
// fewer preemptions and faults, while the run keeps failing with the same
// first failure. It is deterministic, so a shrunk story is reproducible.
package shrink
