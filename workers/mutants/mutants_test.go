package mutants

import (
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/workers"
	"github.com/podsim/podsim/workers/internal/mutant"
)

// TestCatalogueCoversEveryMutant: every mutant.ID has a documented entry
// under its own name, so Enable(name) switches on exactly that ID.
func TestCatalogueCoversEveryMutant(t *testing.T) {
	infos := Catalogue()
	if len(infos) != len(mutant.All()) {
		t.Fatalf("got %d catalogue entries, want %d", len(infos), len(mutant.All()))
	}
	for _, id := range mutant.All() {
		info := infos[id]
		if info.Name != id.String() || info.Issue == "" || info.Mutation == "" || len(info.Invariants) == 0 {
			t.Errorf("entry %d: got %+v, want name %s with issue, mutation and invariants", id, info, id)
		}
		var cfg workers.Config
		if err := Enable(&cfg, info.Name); err != nil {
			t.Fatal(err)
		}
		if got := cfg.Mutants.IDs(); len(got) != 1 || got[0] != id {
			t.Errorf("Enable(%s): got %v, want [%v]", info.Name, got, id)
		}
	}
}

func TestEnableRejectsUnknownNames(t *testing.T) {
	var cfg workers.Config
	if err := Enable(&cfg, "G1", "B99"); err == nil || !strings.Contains(err.Error(), `"B99"`) {
		t.Fatalf("Enable(G1, B99): got %v, want an error naming B99", err)
	}
	if !cfg.Mutants.Empty() {
		t.Fatalf("a failed Enable changed the config: %v", cfg.Mutants.IDs())
	}
	if err := Enable(&cfg, "G1", "B2"); err != nil || len(cfg.Mutants.IDs()) != 2 {
		t.Fatalf("Enable(G1, B2): got %v, %v", cfg.Mutants.IDs(), err)
	}
}

func TestReintroduce(t *testing.T) {
	pw := workers.New(workers.Config{Runtime: workers.NewRealRuntime(nil, 1), Syncer: nopSyncer{}, Cache: nopCache{}})
	if err := Reintroduce(pw, "B99"); err == nil {
		t.Fatal("Reintroduce(B99): got no error")
	}
	if err := Reintroduce(pw, "B2"); err != nil {
		t.Fatal(err)
	}
	pw.SyncKnownPods(nil)
	defer func() {
		if r := recover(); r == nil {
			t.Fatal("Reintroduce after the workers ran: got no panic")
		}
	}()
	_ = Reintroduce(pw, "B1")
}

type nopSyncer struct{}

func (nopSyncer) SyncPod(workers.Event, workers.UpdateType, *v1.Pod, *v1.Pod, *workers.PodStatus) (bool, error) {
	return false, nil
}
func (nopSyncer) SyncTerminatingPod(workers.Event, *v1.Pod, *workers.PodStatus, int64, workers.PodStatusFunc) error {
	return nil
}
func (nopSyncer) SyncTerminatingRuntimePod(workers.Event, *workers.RunningPod) error { return nil }
func (nopSyncer) SyncTerminatedPod(workers.Event, *v1.Pod, *workers.PodStatus) error { return nil }

type nopCache struct{}

func (nopCache) Get(types.UID) (*workers.PodStatus, error) { return &workers.PodStatus{}, nil }
func (nopCache) GetNewerThan(types.UID, time.Time) (*workers.PodStatus, error) {
	return &workers.PodStatus{}, nil
}
