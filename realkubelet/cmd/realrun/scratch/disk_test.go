package scratch

import (
	"strings"
	"testing"
)

// TestLowDisk: below one and a half first builds of free space realrun
// warns, naming the cache and the remedy; above, it says nothing.
func TestLowDisk(t *testing.T) {
	if got := lowDisk(1<<30, "/c"); !strings.Contains(got, "1.1 GB free") || !strings.Contains(got, "(/c)") || !strings.Contains(got, "go clean -cache") {
		t.Errorf("1 GiB free: %q", got)
	}
	if got := lowDisk(3<<30, "/c"); got != "" {
		t.Errorf("3 GiB free: %q, want no warning", got)
	}
	if got := LowDisk(); got != "" && !strings.Contains(got, "GB free") {
		t.Errorf("this machine: %q", got)
	}
}
