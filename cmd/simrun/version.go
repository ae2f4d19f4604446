package main

import (
	"runtime"
	"runtime/debug"
)

// buildInfo is what the binary knows of its own build: the module
// version ("devel" for a build from a work tree) and the VCS commit
// ("unknown" when the build recorded none; "+dirty" when the tree had
// uncommitted changes).
type buildInfo struct {
	Version string `json:"version"`
	Commit  string `json:"commit"`
	Go      string `json:"go"`
}

func readBuildInfo() buildInfo {
	b := buildInfo{Version: "devel", Commit: "unknown", Go: runtime.Version()}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return b
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		b.Version = v
	}
	dirty := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Commit = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if dirty && b.Commit != "unknown" {
		b.Commit += "+dirty"
	}
	return b
}

// versionString is `simrun --version`'s text.
func versionString() string {
	b := readBuildInfo()
	return b.Version + " (commit " + b.Commit + ", " + b.Go + ")"
}
