package history

import (
	"strconv"
	"strings"
	"testing"
)

// workerOfByCut is WorkerOf as it was written before its loop: the
// reference the loop must agree with.
func workerOfByCut(goroutine string) (string, int, bool) {
	rest, ok := strings.CutPrefix(goroutine, "worker/")
	if !ok {
		return "", 0, false
	}
	uid, n, found := strings.Cut(rest, "#")
	gen := 1
	if found {
		if v, err := strconv.Atoi(n); err == nil && v > 1 {
			gen = v
		}
	}
	return uid, gen, true
}

// TestWorkerOf: WorkerOf reads every kind of goroutine name as the
// strings.Cut form does: worker names with and without a generation, a
// generation of 1, 0, a bad one, a UID with a "#" twice, names that only
// start like a worker's, and other goroutines.
func TestWorkerOf(t *testing.T) {
	for _, g := range []string{"worker/a", "worker/a#2", "worker/abc#12", "worker/a#1", "worker/a#0", "worker/a#x", "worker/a#", "worker/a#2#3",
		"worker/", "worker", "worke", "", "client/0", "workers/a", "housekeeping", "worker/uid-1#3", "worker/#4"} {
		uid, gen, ok := WorkerOf(g)
		wuid, wgen, wok := workerOfByCut(g)
		if uid != wuid || gen != wgen || ok != wok {
			t.Errorf("WorkerOf(%q) = %q, %d, %v; want %q, %d, %v", g, uid, gen, ok, wuid, wgen, wok)
		}
	}
}
