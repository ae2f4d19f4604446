package realkubelet

import "github.com/podsim/podsim/shrink/ddmin"

// Shrink removes moves from a failing script while keep still holds for
// the result of running what is left (run replays a script in a fresh
// bubble): first halves, then chunks, then single moves, until no single
// move can go (ddmin.Slice). Releases that no longer match a parked call
// are skipped by the replay, so every candidate is a valid script.
func Shrink(moves []Move, run func([]Move) Result, keep func(Result) bool) []Move {
	return ddmin.Slice(moves, func(cand []Move) bool { return keep(run(cand)) })
}
