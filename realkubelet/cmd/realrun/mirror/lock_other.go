//go:build !unix

package mirror

// Lock is a no-op where flock is not available.
func Lock(dir string) error { return nil }
