//go:build !unix

package cputime

import "time"

// Process is 0 where getrusage is not available: benchmarks then leave out
// their cpu-ns/op metric.
func Process() time.Duration { return 0 }
