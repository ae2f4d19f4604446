//go:build unix

package mirror

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// Lock takes dir's lock for the rest of the process (an flock on
// dir/.lock, released when the process ends, however it ends): two
// processes that mirror and build in one directory at once would corrupt
// each other's copy and binary. A directory another process holds is an
// error that says so, not a wait; one this process holds already is no
// error.
func Lock(dir string) error {
	if held[dir] != nil {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return fmt.Errorf("%s is in use by another realrun (wait for it, or give this one its own PODSIM_SCRATCH)", dir)
		}
		return err
	}
	held[dir] = f
	return nil
}

// held are the lock files this process holds, by directory: kept open
// (and reachable, so that no finalizer closes them), the locks last as
// long as the process. Process bookkeeping only: nothing of it reaches a
// run or an output.
var held = map[string]*os.File{}
