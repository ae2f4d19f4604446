package realvk

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/podsim/podsim/realvk/script"
)

// TestRegressionScripts replays every shrunk script under testdata: each
// must still produce the classes its "expect" lines name (a virtual-kubelet
// version that fixes one shows up here) and nothing unexplained.
func TestRegressionScripts(t *testing.T) {
	files, err := filepath.Glob("testdata/*.script")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts under testdata (%v)", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			text, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			moves, expect, err := script.Parse(string(text))
			if err != nil {
				t.Fatal(err)
			}
			if len(expect) == 0 {
				t.Fatalf("no expect line")
			}
			r := replay(t, moves)
			for _, want := range expect {
				if !slices.Contains(r.Classes(), want) {
					t.Errorf("class %s not found; findings %v", want, r.Findings)
				}
			}
			for _, f := range r.Unexplained() {
				t.Errorf("unexplained: %s", f)
			}
		})
	}
}
