package scratch

import (
	"fmt"
	"os/exec"
	"strings"
	"syscall"
)

// firstBuildBytes is about what a tree's first build in a slot adds to the
// Go build cache (measured on v1.36.3 and v1.37.2: 1.5–2.5 GB).
const firstBuildBytes = 2 << 30

// LowDisk says, in one line, that the disk of the Go build cache has less
// free space than a first build of a tree needs, or "" if it has enough
// (or cannot be asked). A warning, not a refusal: a slot built before
// needs little.
func LowDisk() string {
	out, err := exec.Command("go", "env", "GOCACHE").Output()
	dir := strings.TrimSpace(string(out))
	if err != nil || dir == "" || dir == "off" {
		return ""
	}
	var st syscall.Statfs_t
	if syscall.Statfs(dir, &st) != nil {
		return ""
	}
	return lowDisk(st.Bavail*uint64(st.Bsize), dir)
}

// lowDisk is LowDisk's verdict on free bytes under the cache dir.
func lowDisk(free uint64, dir string) string {
	if free >= 3*firstBuildBytes/2 {
		return ""
	}
	return fmt.Sprintf("%.1f GB free on the disk of the Go build cache (%s); a tree's first build adds about %d GB to it (go clean -cache empties it)",
		float64(free)/1e9, dir, firstBuildBytes>>30)
}
