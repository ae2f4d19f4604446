package history

// Reuse takes the last record off free (records a run before Reset left
// for the next to empty and reuse), or makes a new one when free is
// empty. The caller sets the record whole before reading it: a reused one
// still holds its last run's fields.
func Reuse[T any](free *[]*T) *T {
	n := len(*free)
	if n == 0 {
		return new(T)
	}
	p := (*free)[n-1]
	(*free)[n-1] = nil // free no longer holds it
	*free = (*free)[:n-1]
	return p
}
