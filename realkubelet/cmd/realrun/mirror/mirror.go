// Package mirror keeps a copy of a source tree in step with it: realrun
// builds a user's tree in a scratch slot, never in the tree, and the copy
// stays at one path per slot so that the Go build cache (keyed on file
// contents and paths) is reused from one run to the next.
package mirror

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Tree makes dst a copy of src's files, but the top-level directories
// skip names, copying only files whose size or modification time differ
// and removing files src no longer has.
func Tree(src, dst string, skip map[string]bool) error {
	keep := map[string]bool{}
	err := filepath.WalkDir(src, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if e.IsDir() && !strings.Contains(rel, string(filepath.Separator)) && skip[rel] {
			return filepath.SkipDir
		}
		keep[rel] = true
		target := filepath.Join(dst, rel)
		switch {
		case e.IsDir():
			return os.MkdirAll(target, 0o755)
		case e.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			if old, err := os.Readlink(target); err == nil && old == link {
				return nil
			}
			os.Remove(target)
			return os.Symlink(link, target)
		case e.Type().IsRegular():
			return copyIfChanged(p, target)
		}
		return nil
	})
	if err != nil {
		return err
	}
	var stale []string
	filepath.WalkDir(dst, func(p string, e fs.DirEntry, err error) error {
		if rel, _ := filepath.Rel(dst, p); err == nil && !keep[rel] {
			stale = append(stale, p)
			if e.IsDir() {
				return filepath.SkipDir
			}
		}
		return nil
	})
	for _, p := range stale {
		if err := os.RemoveAll(p); err != nil {
			return err
		}
	}
	return nil
}

func copyIfChanged(src, dst string) error {
	si, err := os.Stat(src)
	if err != nil {
		return err
	}
	if di, err := os.Stat(dst); err == nil && di.Size() == si.Size() && di.ModTime().Equal(si.ModTime()) {
		return nil
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	os.Remove(dst)
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Chtimes(dst, si.ModTime(), si.ModTime())
}
