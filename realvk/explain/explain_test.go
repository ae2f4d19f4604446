package explain

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/types"
)

// The classifier's own tests: what it may import, and what it needs to
// explain a finding. The predicates' negative tests are in
// classify_test.go, dangling_test.go, classify_edit_test.go and
// classify_known_test.go; the driver's assembly of the Facts is covered
// by the shrunk scripts each class has (realvk's TestRegressionScripts).

// allowedImport: the standard library, the API types, and the call gates'
// outcomes; no world, no target, no driver.
func allowedImport(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".") || strings.HasPrefix(path, "k8s.io/api/") ||
		strings.HasPrefix(path, "k8s.io/apimachinery/") || path == "github.com/podsim/podsim/realvk/callgate"
}

// forbiddenImports lists the imports of Go source src that allowedImport
// refuses.
func forbiddenImports(t *testing.T, name, src string) []string {
	f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, im := range f.Imports {
		if p, _ := strconv.Unquote(im.Path.Value); !allowedImport(p) {
			out = append(out, p)
		}
	}
	return out
}

// TestImportsNoWorld: the classifier's production files import no world,
// and the check refuses a file that does.
func TestImportsNoWorld(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no Go files (%v)", err)
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if bad := forbiddenImports(t, name, string(src)); len(bad) > 0 {
			t.Errorf("%s imports %v", name, bad)
		}
	}
	bad := forbiddenImports(t, "x.go", "package explain\nimport (\n\t\"fmt\"\n\t\"github.com/podsim/podsim/realvk\"\n"+
		"\t\"github.com/virtual-kubelet/virtual-kubelet/node\"\n)\n")
	if strings.Join(bad, " ") != "github.com/podsim/podsim/realvk github.com/virtual-kubelet/virtual-kubelet/node" {
		t.Errorf("a file importing the world and the controller: refused %v", bad)
	}
}

// TestPodFindingNeedsEnd: a finding about a pod is explained only once
// the end state is known (VA compares the end's objects by name); a
// finding whose message names no pod is classified without it.
func TestPodFindingNeedsEnd(t *testing.T) {
	ev := NewEvidence()
	ev.DeleteCaller["c"] = "updatePodStatus"
	ev.Cancelled[1], ev.DoneErr[1] = true, "failed to wait for caches to sync"
	f := &Facts{Evidence: ev, Ready: map[int]bool{}}
	vb := `the controller deleted pod c (c) from the API with UID precondition "", not its own (VK1)`
	if got := f.Classify("VK1", vb); got != "" {
		t.Errorf("VB before the end state: classified %q, want none", got)
	}
	if got := f.Classify("VK7", "controller start 1 never became Ready (VK7)"); got != ClassCancelledBeforeReady {
		t.Errorf("VE before the end state: classified %q, want %s", got, ClassCancelledBeforeReady)
	}
	f.End = &End{APIByName: map[string]types.UID{}, ProviderByName: map[string]types.UID{}}
	if got := f.Classify("VK1", vb); got != ClassNoPrecondition {
		t.Errorf("VB with the end state: classified %q, want %s", got, ClassNoPrecondition)
	}
	if got := f.Classify("VK2", vb); got != "" {
		t.Errorf("VB's message under another check: classified %q, want none", got)
	}
}

// TestNeverReadyNeedsCancelAndNoReady: VE's other two links (the negative
// tests of classify_known_test.go vary only the Err): a start that was
// never cancelled, or whose Ready closed, is not VE even with the
// cache-sync error.
func TestNeverReadyNeedsCancelAndNoReady(t *testing.T) {
	ve := Finding{Check: "VK7", Message: "controller start 1 never became Ready (VK7)"}
	for _, c := range []struct {
		name             string
		cancelled, ready bool
		want             string
	}{
		{"VE", true, false, ClassCancelledBeforeReady},
		{"never cancelled", false, false, ""},
		{"Ready closed", true, true, ""},
	} {
		d := newFacts()
		d.Cancelled[1], d.Ready[1], d.DoneErr[1] = c.cancelled, c.ready, "failed to wait for caches to sync"
		if got := d.classify(ve); got != c.want {
			t.Errorf("%s: classified %q, want %q", c.name, got, c.want)
		}
	}
}
