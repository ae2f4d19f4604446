package workers

import (
	"strconv"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// TestNames: every name a Names gives, kept or not (nil), is the string
// the pod workers built before Names (worker/<uid>[#gen], updates/<uid>,
// cancel/<uid>#<n>, name_namespace), asked in any order and again, and a
// pod of a kept UID under another name or namespace gets its own full
// name. Fails when a kept name is the wrong one (a cancellation's count off
// by one, a full name kept across a rename).
func TestNames(t *testing.T) {
	for _, n := range []*Names{nil, NewNames()} {
		for round := range 3 {
			for _, uid := range []types.UID{"a", "b", "uid-7"} {
				for _, gen := range []int{1, 2, 1, 3} {
					want := "worker/" + string(uid)
					if gen > 1 {
						want += "#" + strconv.Itoa(gen)
					}
					if got := n.worker(uid, gen); got != want {
						t.Fatalf("worker(%s, %d) = %q, want %q", uid, gen, got, want)
					}
				}
				if got, want := n.updates(uid), "updates/"+string(uid); got != want {
					t.Fatalf("updates(%s) = %q, want %q", uid, got, want)
				}
				for _, c := range []int{3, 1, 2, 70, 5, 1} {
					if got, want := n.cancel(uid, c), "cancel/"+string(uid)+"#"+strconv.Itoa(c); got != want {
						t.Fatalf("cancel(%s, %d) = %q, want %q", uid, c, got, want)
					}
				}
				for _, name := range []string{"pod-" + string(uid), "web", "web"} {
					for _, ns := range []string{"default", "kube-system"} {
						pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{UID: uid, Name: name + strconv.Itoa(round), Namespace: ns}}
						if got, want := n.fullName(pod), pod.Name+"_"+ns; got != want {
							t.Fatalf("fullName(%s %s/%s) = %q, want %q", uid, ns, pod.Name, got, want)
						}
					}
				}
			}
		}
	}
}
