package model

import (
	"fmt"

	"github.com/podsim/podsim/model/ops"
)

// rejectf is fmt.Errorf for the rules' rejections, formatted only when the
// message is read: porcupine and the closure try an operation on many
// states and throw most rejections away unread.
func rejectf(format string, args ...any) error { return &rejection{format, args} }

type rejection struct {
	format string
	args   []any
}

func (r *rejection) Error() string { return fmt.Sprintf(r.format, r.args...) }

// lostFork is the rejection of a callback entry with no update taken, or
// of a marker between the acknowledgement and the terminating callback:
// Replay throws these rejections away often (while it still explores
// outcomes), so it is a small value instead of rejectf's boxed arguments.
type lostFork struct {
	uid   string
	fn    ops.SyncFn
	state string // the aborted outcome's state name; "" for the acknowledged one
}

func (e *lostFork) Error() string {
	if e.state == "" {
		return fmt.Sprintf("%s: the worker took the pod lock between acknowledging termination and entering %s", e.uid, e.fn)
	}
	return fmt.Sprintf("%s: %s begins but no update was taken (state %s)", e.uid, e.fn, e.state)
}
