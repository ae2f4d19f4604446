package check

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/podsim/podsim/model/ops"
)

// TestVisualize renders a rejected history through porcupine, which uses
// the adapter's DescribeOperation and DescribeState.
func TestVisualize(t *testing.T) {
	hist := toPorcupine(seq(do(upd(ops.Kill, pod("a", 1))), op(q(ops.IsPodTerminationRequested, "a"), no)))
	res, info := Check(hist, time.Second)
	if res != porcupine.Illegal {
		t.Fatalf("got %v, want Illegal", res)
	}
	var buf bytes.Buffer
	if err := porcupine.Visualize(PorcupineModel(), info, &buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "IsPodTerminationRequested(a)") {
		t.Error("visualization lacks the operation description")
	}
}

// TestPartitionRejectsMalformedInput: malformed porcupine inputs panic
// with a clear message.
func TestPartitionRejectsMalformedInput(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "not an ops.Input") {
			t.Errorf("recovered %v", r)
		}
	}()
	Partition([]porcupine.Operation{{Input: "bogus"}})
}
