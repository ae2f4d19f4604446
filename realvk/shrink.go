package realvk

// Shrink removes moves from a failing script while keep still holds for
// the result of replaying what is left (run replays a script in a fresh
// bubble): first halves, then chunks, then single moves, until no single
// move can go. Moves that no longer apply are skipped by the replay, so
// every candidate is a valid script.
func Shrink(moves []Move, run func([]Move) Result, keep func(Result) bool) []Move {
	cur := append([]Move(nil), moves...)
	for chunk := max(len(cur)/2, 1); ; {
		removed := false
		for i := 0; i+chunk <= len(cur); {
			cand := append(append([]Move(nil), cur[:i]...), cur[i+chunk:]...)
			if keep(run(cand)) {
				cur, removed = cand, true
				continue
			}
			i++
		}
		switch {
		case removed:
			continue
		case chunk > 1:
			chunk /= 2
			continue
		}
		return cur
	}
}
