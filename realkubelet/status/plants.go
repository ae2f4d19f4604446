package status

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/go-logr/logr"
	"github.com/podsim/podsim/realkubelet/kstatus"
	"github.com/podsim/podsim/realkubelet/planted"
)

// Plants is the bug a test plants in the component (package planted; the
// status component acts on UnsafeStatus, EarlyTerminate, NoTerminate,
// LoseStatus, LoseReadiness, ReadyTerminal and StripDisruption). Planted is
// told when the plant changed what happened.
type Plants struct {
	Bug     planted.Bug
	Planted func()
}

// newManager is a real status manager over the API server, with the
// current pod workers as its deletion safety.
func (s *Component) newManager() *kstatus.Manager {
	safety := s.host.Workers().CouldHaveRunningContainers
	if s.plants.Bug == planted.UnsafeStatus {
		safety = func(types.UID) bool { s.plants.Planted(); return false }
	}
	m := kstatus.New(s.api, safety, logr.Discard())
	if s.plants.Bug == planted.LoseStatus {
		m.LoseSets = s.plants.Planted
	}
	if s.plants.Bug == planted.LoseReadiness {
		m.LoseReadiness = s.plants.Planted
	}
	if s.plants.Bug == planted.StripDisruption {
		s.api.Strip = v1.DisruptionTarget
	}
	return m
}
