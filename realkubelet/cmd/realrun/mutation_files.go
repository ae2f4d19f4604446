package main

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// --files names the files a mutation run mutates, relative to the tree:
// by default the kubelet target's pkg/kubelet/pod_workers.go, the VK
// target's node/pod.go and node/podcontroller.go. Any other non-test Go
// file of the tree may be named, e.g. the real status manager
// (pkg/kubelet/status/status_manager.go) or node shutdown manager
// (pkg/kubelet/nodeshutdown/nodeshutdown_manager_linux.go) the
// realkubelet runs use. The mutants are numbered through the files in
// the order given, so the default's numbers stay the same when files are
// added after it; each package gets its own guards' file.

// filesOr is the --files list, or def when it is empty.
func filesOr(v, def string) []string {
	if v == "" {
		v = def
	}
	return strings.Split(v, ",")
}

// checkFilesFlag refuses a --files value that cannot name a tree's
// non-test Go files, before anything is built.
func checkFilesFlag(v string) error {
	if v == "" {
		return nil
	}
	var seen []string
	for _, f := range strings.Split(v, ",") {
		switch {
		case f == "":
			return fmt.Errorf("--files: an empty name in %q (want comma-separated paths, e.g. pkg/kubelet/pod_workers.go)", v)
		case filepath.IsAbs(f) || path.Clean(f) != f || strings.HasPrefix(f, "../"):
			return fmt.Errorf("--files: %q is not a clean path relative to the tree (e.g. pkg/kubelet/status/status_manager.go)", f)
		case !strings.HasSuffix(f, ".go") || strings.HasSuffix(f, "_test.go"):
			return fmt.Errorf("--files: %q is not a non-test Go file", f)
		case slices.Contains(seen, f):
			return fmt.Errorf("--files: %q is named twice", f)
		}
		seen = append(seen, f)
	}
	return nil
}

// checkFiles refuses files the target's tree does not have.
func (t target) checkFiles() error {
	for _, f := range t.files {
		if _, err := os.Stat(filepath.Join(t.source, f)); err != nil {
			return fmt.Errorf("--files: %s has no %s", t.tree(), f)
		}
	}
	return nil
}
