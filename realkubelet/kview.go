package realkubelet

import (
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/oracle"
)

// actorsView is oracle.Kubelet over the driver: the config source and
// what the kubelet's admission did (package actors). It has no API server and no
// status manager of its own (StatusPhase is the config phase).
type actorsView struct{ d *Driver }

func (k actorsView) UIDs() []types.UID { return k.d.sortedUniverse() }

func (k actorsView) Pod(uid types.UID) oracle.KubeletPod {
	p, a := k.d.pods[uid], k.d.actors
	if p == nil {
		return oracle.KubeletPod{}
	}
	return oracle.KubeletPod{Name: k.d.podOf(uid).Name, Incarnation: 1, InConfig: p.inConfig, Phase: p.phase,
		Deleted: p.deletion != nil, Admitted: a.Admitted[uid], Rejected: a.Rejected[uid],
		AddedInShutdown: a.AddedInShutdown[uid], FirstAddAt: a.FirstAddAt[uid], StatusPhase: p.phase}
}

func (actorsView) APIServer() bool { return false }

func (k actorsView) ShutdownAt() time.Duration { return k.d.actors.ShutdownAt() }
func (k actorsView) ShuttingDown() bool        { return k.d.actors.ShuttingDown() }

// kubelet is the view's Kubelet without the status component: nil unless
// the shutdown or eviction component runs.
func (d *Driver) kubelet() oracle.Kubelet {
	if !d.kubeletOn() {
		return nil
	}
	return actorsView{d}
}
