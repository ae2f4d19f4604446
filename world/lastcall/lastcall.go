// Package lastcall keeps the kubelet world's last housekeeping call
// (SyncKnownPods) as recorded, its input and its result, and hands them
// out again while the next call's are the same: recorded inputs and
// outputs are read only, so the settle phase's repeated housekeeping
// builds and boxes none.
package lastcall

import (
	"slices"

	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/workers"
)

// Memo is the last SyncKnownPods call's input and result as recorded. The
// zero value is ready.
type Memo struct {
	desired    []string
	known, buf ops.KnownPods   // the last result, and the buffer a result is built in
	call       ops.Input       // desired's SyncKnownPods, boxed once
	result     ops.Output      // known, boxed once
	first      [4]ops.KnownPod // buf's first array
}

// Desired is the SyncKnownPods input naming n UIDs, uid(i) the i-th: the
// last call's when they are the same.
func (m *Memo) Desired(n int, uid func(i int) string) ops.Input {
	same := n == len(m.desired)
	for i := 0; same && i < n; i++ {
		same = uid(i) == m.desired[i]
	}
	if !same {
		m.desired = make([]string, 0, n)
		for i := range n {
			m.desired = append(m.desired, uid(i))
		}
	}
	if !same || m.call == nil {
		m.call = ops.SyncKnownPods{Desired: m.desired}
	}
	return m.call
}

// Known is SyncKnownPods' result in the model's terms: the last call's
// when it is the same.
func (m *Memo) Known(known workers.KnownPods) ops.Output {
	if m.buf == nil {
		m.buf = m.first[:0]
	}
	m.buf = appendKnownPods(m.buf[:0], known)
	if m.known == nil || !slices.Equal(m.buf, m.known) {
		m.known = slices.Clone(m.buf)
		m.result = m.known
	}
	return m.result
}

// appendKnownPods appends SyncKnownPods' result (in UID order) in the
// model's terms to out.
func appendKnownPods(out ops.KnownPods, known workers.KnownPods) ops.KnownPods {
	for _, r := range known {
		out = append(out, ops.KnownPod{UID: string(r.UID), State: ops.WorkType(r.State), Orphan: r.Orphan,
			HasConfig: r.HasConfig, Static: r.Static})
	}
	return out
}
