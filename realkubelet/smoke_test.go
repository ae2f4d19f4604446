package realkubelet

import (
	"testing"
	"testing/synctest"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kubernetes/pkg/kubelet"
	kubetypes "k8s.io/kubernetes/pkg/kubelet/types"

	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/realkubelet/podworkers"
	"github.com/podsim/podsim/realkubelet/syncgate"
)

// TestRealWorkersReachGates: the linknamed constructor builds the real pod
// workers, a create parks SyncPod at its gate, a kill cancels it, and the
// pod goes through SyncTerminatingPod and SyncTerminatedPod to finished.
func TestRealWorkersReachGates(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := syncgate.New()
		pw := podworkers.New(g, podworkers.Cache{}, g.Enqueue)
		ctx := quietContext()
		pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{UID: "a", Name: "a", Namespace: "default",
			Annotations: map[string]string{kubetypes.ConfigSourceAnnotationKey: kubetypes.ApiserverSource}}}
		pw.UpdatePod(ctx, kubelet.UpdatePodOptions{UpdateType: kubetypes.SyncPodCreate, Pod: pod})
		synctest.Wait()
		parked := g.Parked()
		if len(parked) != 1 || parked[0].Fn != ops.SyncPod {
			t.Fatalf("parked %v, want one SyncPod", parked)
		}
		done := make(chan struct{})
		pw.UpdatePod(ctx, kubelet.UpdatePodOptions{UpdateType: kubetypes.SyncPodKill, Pod: pod,
			KillPodOptions: &kubelet.KillPodOptions{CompletedCh: done}})
		if parked[0].Ctx.Err() == nil {
			t.Fatalf("kill did not cancel the in-flight SyncPod")
		}
		for _, want := range []ops.SyncFn{ops.SyncTerminatingPod, ops.SyncTerminatedPod} {
			g.Release("a", syncgate.ReturnOK)
			synctest.Wait()
			if p := g.Parked(); len(p) != 1 || p[0].Fn != want {
				t.Fatalf("parked %v, want %v", p, want)
			}
			if want == ops.SyncTerminatedPod {
				select {
				case <-done:
				default:
					t.Fatalf("CompletedCh open after SyncTerminatingPod succeeded")
				}
			}
		}
		g.Release("a", syncgate.ReturnOK)
		synctest.Wait()
		if !pw.ShouldPodBeFinished("a") {
			t.Fatalf("pod not finished")
		}
	})
}
