package goroutines

import "testing"

// A goroutine of a synctest bubble as runtime.Stack prints it.
const block = "goroutine 42 [chan receive, synctest bubble 7]:\n" +
	"k8s.io/kubernetes/pkg/kubelet.(*podWorkers).podWorkerLoop(0xc000123, {0xc0001, 0x24})\n" +
	"\t/root/go/pkg/mod/k8s.io/kubernetes@v1.36.3/pkg/kubelet/pod_workers.go:1234 +0x1a5\n" +
	"created by k8s.io/kubernetes/pkg/kubelet.(*podWorkers).UpdatePod in goroutine 17\n" +
	"\t/root/go/pkg/mod/k8s.io/kubernetes@v1.36.3/pkg/kubelet/pod_workers.go:999 +0x2b"

// TestDescribeGoroutine: the bubble id is read from the header, and a
// goroutine is named by its innermost frame in the code asked for, its
// wait reason and creator, without ids or addresses; a goroutine with no
// frame in that code is named "?".
func TestDescribeGoroutine(t *testing.T) {
	if got := bubbleOf(block); got != "7" {
		t.Fatalf("bubbleOf = %q, want 7", got)
	}
	if got := bubbleOf("goroutine 1 [running]:\nmain.main()"); got != "" {
		t.Fatalf("bubbleOf outside a bubble = %q", got)
	}
	want := "goroutine k8s.io/kubernetes/pkg/kubelet.(*podWorkers).podWorkerLoop (chan receive at pod_workers.go:1234, " +
		"created by k8s.io/kubernetes/pkg/kubelet.(*podWorkers).UpdatePod)"
	if got := describeGoroutine(block, "k8s.io/kubernetes/"); got != want {
		t.Fatalf("describeGoroutine =\n%s\nwant\n%s", got, want)
	}
	if got := describeGoroutine(block, "github.com/virtual-kubelet/"); got != "goroutine ? (chan receive at ?, created by k8s.io/kubernetes/pkg/kubelet.(*podWorkers).UpdatePod)" {
		t.Fatalf("describeGoroutine of other code = %s", got)
	}
}

// TestStuckOutsideABubble: the test goroutine is in no bubble, so nothing
// is reported.
func TestStuckOutsideABubble(t *testing.T) {
	if got := Stuck("testing"); got != nil {
		t.Fatalf("Stuck outside a bubble = %q", got)
	}
}
