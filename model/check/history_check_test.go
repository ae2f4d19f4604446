package check

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
)

// namedHistory is a hand-written history: ops in a linearization order
// (the witness Replay uses) with real-time intervals (what porcupine uses).
// For an illegal history, because is a fragment of Replay's reason.
type namedHistory struct {
	name    string
	legal   bool
	because string
	build   func() []timed
}

func allHistories() []namedHistory {
	return slices.Concat(legalHistories(), illegalHistories())
}

// expectHistory checks one catalogued history with porcupine and Replay.
func expectHistory(t *testing.T, name string) {
	t.Helper()
	for _, h := range allHistories() {
		if h.name == name {
			checkHistory(t, h)
			return
		}
	}
	t.Fatalf("no history %q", name)
}

func checkHistory(t *testing.T, h namedHistory) {
	t.Helper()
	hist := h.build()
	res, info := Check(toPorcupine(hist), 10*time.Second)
	if (res == porcupine.Ok) != h.legal {
		t.Errorf("porcupine: %v, want legal=%v", res, h.legal)
		if dir := os.Getenv("MODEL_VIS_DIR"); dir != "" {
			_ = porcupine.VisualizePath(PorcupineModel(), info, filepath.Join(dir, h.name+".html"))
		}
	}
	ok, at, why := Replay(opsOf(hist))
	if ok != h.legal {
		t.Errorf("Replay: ok=%v (at %d: %s), want legal=%v", ok, at, why, h.legal)
	}
	if !ok {
		t.Logf("Replay: %s", why)
	}
	if !h.legal && !strings.Contains(why, h.because) {
		t.Errorf("Replay rejected for %q, want a reason containing %q", why, h.because)
	}
}

// TestReplayAgreesWithPorcupine runs every hand-written history through both.
func TestReplayAgreesWithPorcupine(t *testing.T) {
	for _, h := range allHistories() {
		t.Run(h.name, func(t *testing.T) { checkHistory(t, h) })
	}
}
