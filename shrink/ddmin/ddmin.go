package ddmin

// Slice removes elements from a failing sequence while keep still holds
// for what is left: chunks of half the sequence first, then of halving
// size, restarting at the current size after every removal, until no
// single element can go. It is the delta-debugging pass of the real
// targets (realkubelet, realvk), whose scripts are lists of moves replayed
// in a fresh bubble; Minimize's own passes work on a run.Case.
func Slice[T any](xs []T, keep func([]T) bool) []T {
	cur := append([]T(nil), xs...)
	for chunk := max(len(cur)/2, 1); ; {
		removed := false
		for i := 0; i+chunk <= len(cur); {
			cand := append(append([]T(nil), cur[:i]...), cur[i+chunk:]...)
			if keep(cand) {
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
