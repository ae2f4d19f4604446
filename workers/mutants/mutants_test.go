package mutants

import (
	"strings"
	"testing"

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
