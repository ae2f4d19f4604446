package workers

import (
	"strconv"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Names builds the names the pod workers give a UID's goroutine, wake-up
// signal and cancellation Events, and pods' full names, and keeps each for
// the next pod workers given the same Names: a simulated run names the same
// few UIDs seed after seed, so each name is built once, not once a seed.
// The names are the same strings either way. A nil *Names keeps nothing.
// One harness owns it: it is not safe for concurrent use.
type Names struct {
	of map[types.UID]*uidNames
}

// uidNames are one UID's names built so far.
type uidNames struct {
	worker, updates string   // worker/<uid>, updates/<uid>
	cancels         []string // cancel/<uid>#<n> at n-1
	// The last full name built for a pod of the UID, and its parts.
	name, namespace, full string
}

// NewNames returns an empty Names.
func NewNames() *Names { return &Names{of: map[types.UID]*uidNames{}} }

func (n *Names) uid(uid types.UID) *uidNames {
	e := n.of[uid]
	if e == nil {
		e = &uidNames{}
		n.of[uid] = e
	}
	return e
}

// worker names uid's gen-th worker goroutine: worker/<uid>, then
// worker/<uid>#<gen>.
func (n *Names) worker(uid types.UID, gen int) string {
	if gen > 1 {
		return "worker/" + string(uid) + "#" + strconv.Itoa(gen)
	} else if n == nil {
		return "worker/" + string(uid)
	}
	e := n.uid(uid)
	if e.worker == "" {
		e.worker = "worker/" + string(uid)
	}
	return e.worker
}

// updates names uid's wake-up signal: updates/<uid>.
func (n *Names) updates(uid types.UID) string {
	if n == nil {
		return "updates/" + string(uid)
	}
	e := n.uid(uid)
	if e.updates == "" {
		e.updates = "updates/" + string(uid)
	}
	return e.updates
}

// cancel names uid's count-th cancellation Event: cancel/<uid>#<count>.
func (n *Names) cancel(uid types.UID, count int) string {
	if n == nil || count < 1 || count > 64 {
		return "cancel/" + string(uid) + "#" + strconv.Itoa(count)
	}
	e := n.uid(uid)
	for len(e.cancels) < count {
		e.cancels = append(e.cancels, "cancel/"+string(uid)+"#"+strconv.Itoa(len(e.cancels)+1))
	}
	return e.cancels[count-1]
}

// fullName is the kubelet's kubecontainer.GetPodFullName: name_namespace.
func (n *Names) fullName(pod *v1.Pod) string {
	if n == nil {
		return podFullName(pod)
	}
	e := n.uid(pod.UID)
	if e.full == "" || e.name != pod.Name || e.namespace != pod.Namespace {
		e.name, e.namespace, e.full = pod.Name, pod.Namespace, podFullName(pod)
	}
	return e.full
}
