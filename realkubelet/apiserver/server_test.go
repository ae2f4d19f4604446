package apiserver

import (
	"context"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	statusutil "k8s.io/kubernetes/pkg/util/pod"
)

var t0 = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

func newServer() (*Server, *time.Time) {
	now := t0
	return New(func() time.Time { return now }), &now
}

func pod(uid, name string, grace int64) *v1.Pod {
	return &v1.Pod{ObjectMeta: metav1.ObjectMeta{UID: types.UID(uid), Name: name, Namespace: "default"},
		Spec: v1.PodSpec{NodeName: "node", TerminationGracePeriodSeconds: &grace}, Status: v1.PodStatus{Phase: v1.PodRunning}}
}

func ptr(v int64) *int64 { return &v }

func mustCreate(t *testing.T, s *Server, p *v1.Pod) *v1.Pod {
	t.Helper()
	out, err := s.Client("test").CoreV1().Pods(p.Namespace).Create(context.Background(), p, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func del(s *Server, name string, o metav1.DeleteOptions) error {
	return s.Client("client").CoreV1().Pods("default").Delete(context.Background(), name, o)
}

func get(s *Server, name string) (*v1.Pod, error) {
	return s.Client("client").CoreV1().Pods("default").Get(context.Background(), name, metav1.GetOptions{})
}

// TestGracefulDeletion: grace > 0 keeps the object with a deletion
// timestamp; a longer grace changes nothing; a shorter one moves the
// timestamp back; grace 0 removes it.
func TestGracefulDeletion(t *testing.T) {
	s, now := newServer()
	mustCreate(t, s, pod("a", "web", 30))
	if err := del(s, "web", metav1.DeleteOptions{GracePeriodSeconds: ptr(20)}); err != nil {
		t.Fatal(err)
	}
	p, err := get(s, "web")
	if err != nil || p.DeletionTimestamp == nil || !p.DeletionTimestamp.Time.Equal(t0.Add(20*time.Second)) || *p.DeletionGracePeriodSeconds != 20 {
		t.Fatalf("after graceful delete: %v %v", p, err)
	}
	*now = t0.Add(time.Second)
	rv := p.ResourceVersion
	if err := del(s, "web", metav1.DeleteOptions{GracePeriodSeconds: ptr(25)}); err != nil {
		t.Fatal(err)
	}
	if p, _ = get(s, "web"); p.ResourceVersion != rv || *p.DeletionGracePeriodSeconds != 20 {
		t.Fatalf("a longer grace changed the object: %v", p)
	}
	if err := del(s, "web", metav1.DeleteOptions{GracePeriodSeconds: ptr(5)}); err != nil {
		t.Fatal(err)
	}
	if p, _ = get(s, "web"); !p.DeletionTimestamp.Time.Equal(t0.Add(5*time.Second)) || *p.DeletionGracePeriodSeconds != 5 {
		t.Fatalf("a shorter grace did not shorten: %v", p.DeletionTimestamp)
	}
	if err := del(s, "web", metav1.DeleteOptions{GracePeriodSeconds: ptr(0)}); err != nil {
		t.Fatal(err)
	}
	if _, err := get(s, "web"); !apierrors.IsNotFound(err) {
		t.Fatalf("grace 0 kept the object: %v", err)
	}
	want := []Verb{Create, DeleteGraceful, DeleteGraceful, DeleteRemoved}
	if got := verbs(s.Ops()); !equal(got, want) {
		t.Fatalf("ops %v, want %v", got, want)
	}
}

// TestDeleteAtOnce: the pod strategy's immediate cases, and the spec's
// grace when the delete names none.
func TestDeleteAtOnce(t *testing.T) {
	s, _ := newServer()
	unbound := pod("a", "unbound", 30)
	unbound.Spec.NodeName = ""
	done := pod("b", "done", 30)
	done.Status.Phase = v1.PodSucceeded
	mustCreate(t, s, unbound)
	mustCreate(t, s, done)
	mustCreate(t, s, pod("c", "spec", 7))
	for _, name := range []string{"unbound", "done"} {
		if err := del(s, name, metav1.DeleteOptions{GracePeriodSeconds: ptr(30)}); err != nil {
			t.Fatal(err)
		}
		if _, err := get(s, name); !apierrors.IsNotFound(err) {
			t.Errorf("%s: not removed at once: %v", name, err)
		}
	}
	if err := del(s, "spec", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if p, err := get(s, "spec"); err != nil || *p.DeletionGracePeriodSeconds != 7 {
		t.Fatalf("a delete without grace must take the spec's 7 s: %v %v", p, err)
	}
}

// TestUIDPrecondition: a delete whose UID or resourceVersion precondition
// does not match is a Conflict and changes nothing; a matching one works.
func TestUIDPrecondition(t *testing.T) {
	s, _ := newServer()
	created := mustCreate(t, s, pod("new", "web", 30))
	for _, pre := range []*metav1.Preconditions{metav1.NewUIDPreconditions("old"), &metav1.Preconditions{ResourceVersion: strp("999")}} {
		err := del(s, "web", metav1.DeleteOptions{GracePeriodSeconds: ptr(0), Preconditions: pre})
		if !apierrors.IsConflict(err) {
			t.Fatalf("precondition %v: got %v, want Conflict", pre, err)
		}
		if _, err := get(s, "web"); err != nil {
			t.Fatalf("a failed precondition removed the pod: %v", err)
		}
	}
	ok := metav1.NewUIDPreconditions("new")
	ok.ResourceVersion = &created.ResourceVersion
	if err := del(s, "web", metav1.DeleteOptions{GracePeriodSeconds: ptr(0), Preconditions: ok}); err != nil {
		t.Fatal(err)
	}
	if _, err := get(s, "web"); !apierrors.IsNotFound(err) {
		t.Fatalf("matching preconditions did not delete: %v", err)
	}
}

// TestStatusSubresource: a status write never changes the spec; a spec
// write never changes the status nor the deletion fields; the kubelet's
// own PatchPodStatus changes exactly the status.
func TestStatusSubresource(t *testing.T) {
	s, _ := newServer()
	mustCreate(t, s, pod("a", "web", 30))
	c := s.Client("kubelet").CoreV1().Pods("default")
	ctx := context.Background()
	p, _ := get(s, "web")
	p.Spec.NodeName, p.Status.Phase = "elsewhere", v1.PodFailed
	if _, err := c.UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if p, _ = get(s, "web"); p.Spec.NodeName != "node" || p.Status.Phase != v1.PodFailed {
		t.Fatalf("status update: spec %q phase %s, want node Failed", p.Spec.NodeName, p.Status.Phase)
	}
	if err := del(s, "web", metav1.DeleteOptions{GracePeriodSeconds: ptr(0)}); err != nil {
		t.Fatal(err) // terminal now: removed at once
	}
	mustCreate(t, s, pod("b", "web", 30))
	if err := del(s, "web", metav1.DeleteOptions{GracePeriodSeconds: ptr(10)}); err != nil {
		t.Fatal(err)
	}
	p, _ = get(s, "web")
	p.Spec.ActiveDeadlineSeconds, p.Status.Phase, p.DeletionTimestamp = ptr(5), v1.PodSucceeded, nil
	if _, err := c.Update(ctx, p, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if p, _ = get(s, "web"); p.Status.Phase != v1.PodRunning || p.DeletionTimestamp == nil || *p.Spec.ActiveDeadlineSeconds != 5 {
		t.Fatalf("spec update: phase %s deletion %v deadline %v, want Running, kept, 5", p.Status.Phase, p.DeletionTimestamp, p.Spec.ActiveDeadlineSeconds)
	}
	st := p.Status
	st.Phase = v1.PodFailed
	if _, _, _, err := statusutil.PatchPodStatus(ctx, s.Client("kubelet"), "default", "web", "b", p.Status, st); err != nil {
		t.Fatal(err)
	}
	if q, _ := get(s, "web"); q.Status.Phase != v1.PodFailed || *q.Spec.ActiveDeadlineSeconds != 5 || q.DeletionTimestamp == nil {
		t.Fatalf("PatchPodStatus: %v", q)
	}
	if last := s.Ops()[len(s.Ops())-1]; last.Verb != PatchStatus || last.Actor != "kubelet" || !last.PhaseChanged || last.From != v1.PodRunning {
		t.Fatalf("last op %+v, want the kubelet's phase-changing status patch", last)
	}
}

// TestPatchUIDConflict: PatchPodStatus for another incarnation of the
// name is a Conflict and changes nothing.
func TestPatchUIDConflict(t *testing.T) {
	s, _ := newServer()
	mustCreate(t, s, pod("new", "web", 30))
	patch := []byte(`{"metadata":{"uid":"old"},"status":{"phase":"Failed"}}`) // PatchPodStatus's shape
	_, err := s.Client("kubelet").CoreV1().Pods("default").Patch(context.Background(), "web", types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "status")
	if !apierrors.IsConflict(err) {
		t.Fatalf("got %v, want a Conflict", err)
	}
	if p, _ := get(s, "web"); p.Status.Phase != v1.PodRunning {
		t.Fatalf("a refused patch wrote phase %s", p.Status.Phase)
	}
}

// TestResourceVersionConflict: an update with a stale resourceVersion is a
// Conflict; the current one, or none, is accepted; every write bumps it.
func TestResourceVersionConflict(t *testing.T) {
	s, _ := newServer()
	first := mustCreate(t, s, pod("a", "web", 30))
	c := s.Client("client").CoreV1().Pods("default")
	ctx := context.Background()
	second, err := c.Update(ctx, first, metav1.UpdateOptions{})
	if err != nil || second.ResourceVersion == first.ResourceVersion {
		t.Fatalf("update at the current version: %v, rv %s→%s", err, first.ResourceVersion, second.ResourceVersion)
	}
	if _, err := c.Update(ctx, first, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
		t.Fatalf("stale update: got %v, want Conflict", err)
	}
	first.ResourceVersion = ""
	if _, err := c.Update(ctx, first, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("unconditional update: %v", err)
	}
}

// TestCreateAndUnmodelled: a taken name is AlreadyExists; verbs and
// resources the model does not have are refused, not faked.
func TestCreateAndUnmodelled(t *testing.T) {
	s, _ := newServer()
	mustCreate(t, s, pod("a", "web", 30))
	if _, err := s.Client("c").CoreV1().Pods("default").Create(context.Background(), pod("b", "web", 30), metav1.CreateOptions{}); !apierrors.IsAlreadyExists(err) {
		t.Fatalf("got %v, want AlreadyExists", err)
	}
	if _, err := s.Client("c").CoreV1().Pods("default").Watch(context.Background(), metav1.ListOptions{}); err == nil {
		t.Fatal("watch must be refused")
	}
	if _, err := s.Client("c").CoreV1().Nodes().Get(context.Background(), "node", metav1.GetOptions{}); err == nil {
		t.Fatal("nodes must be refused")
	}
}

func verbs(ops []Op) []Verb {
	var out []Verb
	for _, o := range ops {
		out = append(out, o.Verb)
	}
	return out
}

func equal(a, b []Verb) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func strp(s string) *string { return &s }
