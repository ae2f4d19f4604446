//go:build !unix

package scenarios

import "time"

func cpuTime() time.Duration { return 0 }
