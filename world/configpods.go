package world

import (
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/plan"
)

// configPod is the config source's view of one pod.
type configPod struct {
	action   plan.Action // the shape it was created with
	version  int
	inConfig bool
	deletion *int64      // deletion grace once deleted
	phase    v1.PodPhase // as the config source last delivered it
	stub     *v1.Pod     // a pod object with the pod's UID for SyncKnownPods (desired)
	full     string      // its full name, once asked (fullName)
	// built is the last pod object podOf built while the pod was not
	// deleted, for builtVersion and builtPhase (podOf hands it out again).
	built        *v1.Pod
	builtVersion int
	builtPhase   v1.PodPhase

	// The kubelet's view (reset at a kubelet restart): admitted means
	// handed to the pod workers by an ADD; rejected, refused at admission
	// (a local Failed status, never sent to the workers).
	admitted, rejected bool
	firstAddAt         time.Duration // first ADD (unset: never added)
	addedInShutdown    bool          // first ADDed after the node shutdown began
	created            int           // order of the pod object's first ADD (its creation timestamp)
	// The API server's view (Plan.Node.APIServer): the pod object exists,
	// its published phase, when it was deleted, and a pending watch echo.
	inAPI     bool
	apiPhase  v1.PodPhase
	deletedAt time.Duration
	echoDue   bool
	echoAt    time.Duration
}

// podOf builds the current config version of uid. Until the pod is
// deleted its object depends only on the action, the version and the
// phase (not on the time), so the object built last is handed out again
// while those are the same: nothing that receives a pod object changes it
// (the workers copy one before changing a field; history.PodObjects).
func (w *World) podOf(uid types.UID) *v1.Pod {
	p := w.pod(uid)
	if p.deletion != nil {
		return w.podObjects.Build(p.action, p.version, p.phase, p.deletion, w.S.Now())
	}
	if p.built == nil || p.builtVersion != p.version || p.builtPhase != p.phase {
		p.built, p.builtVersion, p.builtPhase = w.podObjects.Build(p.action, p.version, p.phase, nil, w.S.Now()), p.version, p.phase
	}
	return p.built
}

// pod is uid's config pod (nil: not named yet): a scan of a few, no hash.
func (w *World) pod(uid types.UID) *configPod {
	if i, ok := plan.LetterIndex(uid); ok {
		return w.byLetter[i]
	}
	for _, p := range w.inOrder {
		if p.action.UID == uid {
			return p
		}
	}
	return nil
}

// fullName is the pod's full name (name_namespace), built once.
func (p *configPod) fullName() string {
	if p.full == "" {
		p.full = p.action.FullName()
	}
	return p.full
}
