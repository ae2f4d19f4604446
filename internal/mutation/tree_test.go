package mutation

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRefuseNamesTheMutantsOnTheCompilersLines: a compile error on a line
// refuses the live mutants whose text covers it, and only those.
func TestRefuseNamesTheMutantsOnTheCompilersLines(t *testing.T) {
	pw := "pkg/kubelet/pod_workers.go"
	live := []Mutant{{File: pw, Index: 1, Line: 10, Old: "a"}, {File: pw, Index: 2, Line: 11, Old: "b\nc"},
		{File: pw, Index: 3, Line: 14, Old: "d"}, {File: "node/pod.go", Index: 4, Line: 12, Old: "e"}}
	refused := map[int]string{}
	out := "# k8s.io/kubernetes/pkg/kubelet\n../tree/pkg/kubelet/pod_workers.go:12:5: invalid operation: x (mismatched types)\n"
	if n := Refuse([]byte(out), live, refused); n != 1 || refused[2] != "invalid operation: x (mismatched types)" {
		t.Fatalf("refused %v (%d)", refused, n)
	}
	if n := Refuse([]byte("other.go:10:1: nope\n"), live, refused); n != 0 {
		t.Errorf("an error in another file refused %d mutants", n)
	}
}

// TestWriteGuardsPerPackage: --files across packages writes one guards'
// file into each directory, in the package its files declare, and refuses
// a directory whose files declare two packages; a file the tree lacks is
// refused with the tree named.
func TestWriteGuardsPerPackage(t *testing.T) {
	tree := t.TempDir()
	srcs := map[string][]byte{
		"pkg/kubelet/pod_workers.go":                             []byte("package kubelet\n"),
		"pkg/kubelet/status/status_manager.go":                   []byte("// doc\npackage status\n\nfunc f() {}\n"),
		"pkg/kubelet/nodeshutdown/nodeshutdown_manager_linux.go": []byte("//go:build linux\n\npackage nodeshutdown\n"),
	}
	files := []string{"pkg/kubelet/pod_workers.go", "pkg/kubelet/status/status_manager.go", "pkg/kubelet/nodeshutdown/nodeshutdown_manager_linux.go"}
	for _, f := range files {
		if err := os.MkdirAll(filepath.Join(tree, filepath.Dir(f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(tree, f), srcs[f], 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := WriteGuards(tree, srcs, files); err != nil {
		t.Fatal(err)
	}
	for dir, pkg := range map[string]string{"pkg/kubelet": "kubelet", "pkg/kubelet/status": "status", "pkg/kubelet/nodeshutdown": "nodeshutdown"} {
		b, err := os.ReadFile(filepath.Join(tree, dir, "zz_podsim_mutants.go"))
		if err != nil || !strings.Contains(string(b), "\npackage "+pkg+"\n") {
			t.Errorf("%s: guards %q, %v; want package %s", dir, b, err, pkg)
		}
	}
	srcs["pkg/kubelet/status/other.go"] = []byte("package other\n")
	err := WriteGuards(tree, srcs, append(files, "pkg/kubelet/status/other.go"))
	if err == nil || !strings.Contains(err.Error(), "is package other, another file of pkg/kubelet/status package status") {
		t.Errorf("two packages in one directory: %v", err)
	}
}
