package outfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestChecksCreateNothing: CheckFile and CheckDir refuse what cannot be
// written, with the flag and the reason in one line, and leave the
// directory as it was whatever they answer.
func TestChecksCreateNothing(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a-file")
	if err := os.WriteFile(file, nil, 0o666); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		check func(flag, path string) error
		path  string
		want  string // "" for no error
	}{
		{CheckFile, dir, "--x " + dir + ": it is a directory"},
		{CheckFile, filepath.Join(dir, "missing", "f"), "does not exist"},
		{CheckFile, filepath.Join(file, "f"), "not a directory"},
		{CheckFile, "", "--x: empty path"},
		{CheckFile, filepath.Join(dir, "new"), ""},
		{CheckDir, file, "is not a directory"},
		{CheckDir, filepath.Join(dir, "new", "deeper"), ""},
	} {
		err := c.check("--x", c.path)
		if (c.want == "") != (err == nil) || (err != nil && (!strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n"))) {
			t.Errorf("check %q = %v, want %q", c.path, err, c.want)
		}
	}
	if left, _ := os.ReadDir(dir); len(left) != 1 {
		t.Fatalf("the checks left %v behind", left)
	}
}

// TestWriteAtomicallyLeavesNoTemporaryFile: a written file is whole and
// the temporary file is gone; so it is when the rename fails.
func TestWriteAtomicallyLeavesNoTemporaryFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out")
	if err := WriteAtomically(path, []byte("whole")); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path); string(data) != "whole" {
		t.Fatalf("read %q", data)
	}
	blocked := filepath.Join(dir, "a-dir")
	if err := os.MkdirAll(filepath.Join(blocked, "inside"), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := WriteAtomically(blocked, []byte("x")); err == nil || !strings.HasPrefix(err.Error(), "cannot write "+blocked) {
		t.Fatalf("rename over a directory: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) != 0 {
		t.Fatalf("temporary files left: %v", left)
	}
}
