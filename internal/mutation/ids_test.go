package mutation

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestParseIDs: numbers, ranges and keys, inline or from a file; a bad
// item is refused with one line naming it.
func TestParseIDs(t *testing.T) {
	file := filepath.Join(t.TempDir(), "ids")
	if err := os.WriteFile(file, []byte("4 7,9\n12 k0123456789\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{"1,3-5": "1 3 4 5 |", "@" + file: "4 7 9 12 | k0123456789", "2,kabcdef0123": "2 | kabcdef0123"} {
		nums, keys, err := ParseIDs(in)
		got := strings.Trim(strings.Join([]string{intsOf(nums), strings.Join(slices.Sorted(maps.Keys(keys)), " ")}, " | "), " ")
		if err != nil || got != want {
			t.Errorf("ParseIDs(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if nums, keys, err := ParseIDs(""); nums != nil || keys != nil || err != nil {
		t.Errorf("ParseIDs(\"\") = %v, %v, %v; want every mutant (nil)", nums, keys, err)
	}
	for _, bad := range []string{"5-2", "-1", "3-x", "k12", "@/nonexist/x"} {
		if _, _, err := ParseIDs(bad); err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("ParseIDs(%q): %v, want a one-line refusal", bad, err)
		}
	}
}

func intsOf(m map[int]bool) string {
	var s []string
	for _, n := range slices.Sorted(maps.Keys(m)) {
		s = append(s, strconv.Itoa(n))
	}
	return strings.Join(s, " ")
}
