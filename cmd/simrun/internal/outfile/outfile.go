// Package outfile checks and writes simrun's output files. Every path a
// command will write is checked before any work (CheckFile, CheckDir), so
// a typo costs one line and exit 2, not a sweep. Files are created with
// mode 0666 and directories 0777, less the umask, as other tools' files
// are. Its errors are one line each, for simrun to print.
package outfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// CheckFile fails, before any work, when path cannot be written: it
// is a directory, its parent is missing or not a directory, or either is
// not writable. It creates nothing.
func CheckFile(flag, path string) error {
	if path == "" {
		return fmt.Errorf("%s: empty path", flag)
	}
	if fi, err := os.Stat(path); err == nil {
		if fi.IsDir() {
			return fmt.Errorf("cannot write %s %s: it is a directory", flag, path)
		}
		if err := syscall.Access(path, 2 /* W_OK */); err != nil {
			return fmt.Errorf("cannot write %s %s: %v", flag, path, err)
		}
		if !fi.Mode().IsRegular() { // a device or a pipe (/dev/stdout): written in place
			return nil
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("cannot write %s %s: %v", flag, path, err)
	}
	return checkWritableDir(flag, path, filepath.Dir(path))
}

// CheckDir fails when dir cannot be made or written: it is a file,
// or its nearest existing ancestor is not a writable directory. It
// creates nothing (MakeDir does, once every check passed).
func CheckDir(flag, dir string) error {
	if dir == "" {
		return fmt.Errorf("%s: empty path", flag)
	}
	d := dir
	for {
		fi, err := os.Stat(d)
		if err == nil {
			if !fi.IsDir() {
				return fmt.Errorf("cannot write %s %s: %s is not a directory", flag, dir, d)
			}
			return checkWritableDir(flag, dir, d)
		}
		if !errors.Is(err, fs.ErrNotExist) || filepath.Dir(d) == d {
			return fmt.Errorf("cannot write %s %s: %v", flag, dir, err)
		}
		d = filepath.Dir(d)
	}
}

// checkWritableDir checks that dir (where path goes) is a writable
// directory.
func checkWritableDir(flag, path, dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("cannot write %s %s: directory %s does not exist", flag, path, dir)
	case err != nil:
		return fmt.Errorf("cannot write %s %s: %v", flag, path, err)
	case !fi.IsDir():
		return fmt.Errorf("cannot write %s %s: %s is not a directory", flag, path, dir)
	}
	// A probe file, removed at once: access(2) says yes to root even where
	// a create fails (/proc, a read-only mount).
	probe, err := CreateTemp(filepath.Join(dir, "probe"), ".check")
	if err != nil {
		return fmt.Errorf("cannot write %s %s: %v", flag, path, err)
	}
	probe.Close()
	return os.Remove(probe.Name())
}

// MakeDir creates an output directory, and its parents, once every
// check passed.
func MakeDir(dir string) error {
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return fmt.Errorf("cannot write %s: %v", dir, err)
	}
	return nil
}

// Create creates (or truncates) path with mode 0666 less the umask.
func Create(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
}

// CreateTemp creates a new hidden file beside path, mode 0666 less the
// umask (os.CreateTemp would make it 0600 whatever the umask).
func CreateTemp(path, suffix string) (*os.File, error) {
	dir, base := filepath.Split(path)
	for i := 0; ; i++ {
		name := filepath.Join(dir, fmt.Sprintf(".%s.simrun-%d-%d%s", base, os.Getpid(), i, suffix))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) && i < 1000 {
			continue
		}
		return f, err
	}
}

// WriteAtomically writes path through a temporary file and a rename, so a
// reader (or an interrupted write) never sees half a file; the temporary
// file is removed on every error.
func WriteAtomically(path string, data []byte) error {
	tmp, err := CreateTemp(path, ".tmp")
	if err != nil {
		return fmt.Errorf("cannot write %s: %v", path, err)
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("cannot write %s: %v", path, err)
	}
	return nil
}

// Write writes a small output file whose path was checked.
func Write(path string, data []byte) error {
	if err := os.WriteFile(path, data, 0o666); err != nil {
		return fmt.Errorf("cannot write %s: %v", path, err)
	}
	return nil
}
