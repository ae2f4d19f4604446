package model

import "fmt"

// rejectf is fmt.Errorf for the rules' rejections, formatted only when the
// message is read: porcupine and the closure try an operation on many
// states and throw most rejections away unread.
func rejectf(format string, args ...any) error { return &rejection{format, args} }

type rejection struct {
	format string
	args   []any
}

func (r *rejection) Error() string { return fmt.Sprintf(r.format, r.args...) }
