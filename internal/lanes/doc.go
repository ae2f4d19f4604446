// Package lanes runs work on parallel goroutines and hands its results on
// in a fixed order, whatever the parallelism and whatever order the work
// finishes in: what the caller sees is the same at any parallelism, so
// parallel work whose pieces are each deterministic stays deterministic.
// The results waiting for their turn are bounded by a window, so memory
// stays bounded whatever the amount of work; a cancelled context stops
// handing out work, lets the work in flight finish and hands on a prefix.
//
// Indexed runs n independent jobs (simrun's seed sweep); Grouped runs
// several groups' producers side by side, each putting a stream of items
// (simrun's guided sweep: one coverage-guided loop per family). The
// package knows nothing of podsim: the caller's closures do the work.
package lanes
