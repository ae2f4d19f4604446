// Package gobin hands tests a built command of this module without linking
// it again: `go run -exec echo PKG` builds PKG into the Go build cache (or
// finds it there, keyed by its inputs) and prints the cached executable's
// path instead of running it. Test packages that each need simrun (its own
// CLI tests, deploy's shard scripts) therefore share one link per source
// tree, and a tree whose simrun was already built by `go run ./cmd/simrun`
// links nothing at all.
//
// The cached executable carries no VCS stamp (`go run` records none), so
// `simrun --version` says commit "unknown" under test.
package gobin

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// Built returns the path of the cached executable of the main package pkg
// (an import path, or a directory relative to the caller's), building it
// first if the cache has none for the current sources. The call that links
// it prints a path in a scratch directory the go command removes at once
// (the link goes into the cache as it exits), so Built asks again. It asks
// up to four times: test packages run at once, and one that asks while
// another's link of the same sources is still going into the cache links
// again itself (seen once in `make test` under a load of 8-17).
func Built(pkg string) (string, error) {
	var path string
	const asks = 4
	for range asks {
		var stdout, stderr bytes.Buffer
		cmd := exec.Command("go", "run", "-exec", "echo", pkg)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			return "", fmt.Errorf("go run -exec echo %s: %v\n%s", pkg, err, stderr.Bytes())
		}
		path = strings.TrimSpace(stdout.String())
		if fi, err := os.Stat(path); err == nil && !fi.IsDir() {
			return path, nil
		}
	}
	return "", fmt.Errorf("go run -exec echo %s printed %q %d times, not an executable: is the build cache off?", pkg, path, asks)
}
