package status

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/go-logr/logr"
	"github.com/podsim/podsim/realkubelet/kstatus"
)

// Plants are bugs a test plants in the component (the driver's plant.go):
// UnsafeStatus deletes API objects whatever the pod workers say;
// EarlyTerminate calls TerminatePod when SyncTerminatedPod begins;
// NoTerminate never calls it; LoseStatus skips every SetPodStatus the
// kubelet's callbacks make; LoseReadiness strips their readiness
// conditions; ReadyTerminal writes every terminal status again with the
// pod ready (ready.go); StripDisruption has the API server drop the
// DisruptionTarget condition from status writes. Planted is told when a
// plant changed what happened.
type Plants struct {
	UnsafeStatus, EarlyTerminate, NoTerminate, LoseStatus bool
	LoseReadiness, ReadyTerminal, StripDisruption         bool
	Planted                                               func()
}

// newManager is a real status manager over the API server, with the
// current pod workers as its deletion safety.
func (s *Component) newManager() *kstatus.Manager {
	safety := s.host.Workers().CouldHaveRunningContainers
	if s.plants.UnsafeStatus {
		safety = func(types.UID) bool { s.plants.Planted(); return false }
	}
	m := kstatus.New(s.api, safety, logr.Discard())
	if s.plants.LoseStatus {
		m.LoseSets = s.plants.Planted
	}
	if s.plants.LoseReadiness {
		m.LoseReadiness = s.plants.Planted
	}
	if s.plants.StripDisruption {
		s.api.Strip = v1.DisruptionTarget
	}
	return m
}
