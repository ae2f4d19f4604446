package kstatus

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/podsim/podsim/realkubelet/apiserver"
)

// lastOp is the status manager's latest write of uid.
func (w *world) lastOp(t *testing.T, uid string) apiserver.Op {
	t.Helper()
	ops := w.api.Ops()
	for i := len(ops) - 1; i >= 0; i-- {
		if ops[i].Actor == Actor && string(ops[i].UID) == uid {
			return ops[i]
		}
	}
	t.Fatalf("the status manager never wrote %s", uid)
	return apiserver.Op{}
}

// runningPod is pod a (web), set Running and synced: written ready.
func runningPod(t *testing.T) (*world, *v1.Pod) {
	t.Helper()
	w := newWorld()
	p := w.create(t, "a", "web")
	w.m.SetPhase(p, v1.PodRunning, nil)
	w.m.Sync(context.Background(), false)
	if op := w.lastOp(t, "a"); op.Phase != v1.PodRunning || !op.Ready {
		t.Fatalf("running pod written %s ready=%v, want Running and ready", op.Phase, op.Ready)
	}
	return w, p
}

// TestReadiness: a running pod is written ready; a kill's status function
// that sets Failed while the containers still run and are ready (an
// eviction's, #108594's shape) is held back with the pod still ready; once
// the containers stopped, the terminal phase goes out not ready.
func TestReadiness(t *testing.T) {
	w, p := runningPod(t)
	ctx := context.Background()
	w.m.SetPhase(p, "", func(st *v1.PodStatus) { st.Phase = v1.PodFailed })
	w.m.Sync(ctx, true)
	if op := w.lastOp(t, "a"); op.Phase != v1.PodRunning || !op.Ready {
		t.Fatalf("while the containers run: %s ready=%v, want Running and still ready", op.Phase, op.Ready)
	}
	w.could["a"] = false
	w.m.Stopped("a")
	w.m.SetPhase(p, "", nil)
	w.m.Sync(ctx, true)
	if op := w.lastOp(t, "a"); op.Phase != v1.PodFailed || op.Ready {
		t.Fatalf("after the containers stopped: %s ready=%v, want Failed and not ready", op.Phase, op.Ready)
	}
}

// TestTerminalWriteNotReady: a SyncPod that finds its containers running
// (ready) on a pod another writer made Failed gives the manager a Failed
// status with Ready True (generateAPIPodStatus keeps the API's terminal
// phase); the manager's merge writes it not ready (#110256). This is the
// rule K7 holds the manager to; a mutant of the merge that drops it
// fails here.
func TestTerminalWriteNotReady(t *testing.T) {
	w, _ := runningPod(t)
	ctx := context.Background()
	cur, err := w.api.Get("default", "web")
	if err != nil {
		t.Fatal(err)
	}
	cur.Status.Phase = v1.PodFailed
	if cur, err = w.api.Update("other", cur, true); err != nil {
		t.Fatal(err)
	}
	if op := w.api.Ops()[len(w.api.Ops())-1]; !op.Ready || op.Phase != v1.PodFailed {
		t.Fatalf("the other writer's op %+v, want Failed and still ready (it kept the conditions)", op)
	}
	w.m.Pods.UpdatePod(cur)
	w.could["a"] = false
	w.m.SetPhase(cur, v1.PodRunning, nil)
	if st, _ := w.m.GetPodStatus("a"); st.Phase != v1.PodFailed || !apiserver.ReadyTrue(st.Conditions) {
		t.Fatalf("cached %s ready=%v, want Failed and ready (the containers still run)", st.Phase, apiserver.ReadyTrue(st.Conditions))
	}
	w.m.Sync(ctx, true)
	if op := w.lastOp(t, "a"); op.Phase != v1.PodFailed || op.Ready {
		t.Fatalf("manager wrote %s ready=%v, want Failed and not ready", op.Phase, op.Ready)
	}
}
