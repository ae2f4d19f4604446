package realvk

import (
	"os"
	"testing"

	"github.com/go-logr/logr"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/klog/v2"
)

// TestMain silences klog (client-go's informer logs through it) and
// empties apimachinery's ErrorHandlers: their rate limiter keeps the last
// error's time in a process-wide variable, so an error in a bubble (a
// notification whose informer never synced before its 3 s ran out) slept
// for the difference between that bubble's fake clock and whatever clock
// set the variable last (the real one at start-up: about 26 years, and the
// bubble could not end). TestNotifyBeforeSyncEnds fails without this.
func TestMain(m *testing.M) {
	klog.SetLogger(logr.Discard())
	utilruntime.ErrorHandlers = []utilruntime.ErrorHandler{}
	os.Exit(m.Run())
}
