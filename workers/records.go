package workers

import "k8s.io/apimachinery/pkg/types"

// recordList holds the records by UID, in ascending UID order. A run
// knows a few pods, so a lookup is a scan: it costs less than a map by UID
// string, whose hash and bucket walk cost about 115 instructions even for
// one to four entries. Each entry keeps the UID it is filed under
// (record-keyed-by-uid checks that it is the record's own).
type recordList []recordEntry

type recordEntry struct {
	uid    types.UID
	status *podSyncStatus
}

// get is the record filed under uid, if any.
func (l recordList) get(uid types.UID) (*podSyncStatus, bool) {
	for i := range l {
		if l[i].uid == uid {
			return l[i].status, true
		}
	}
	return nil, false
}

// at is the record filed under uid, or nil.
func (l recordList) at(uid types.UID) *podSyncStatus {
	s, _ := l.get(uid)
	return s
}

// set files status under uid, in place of the record filed there if any.
func (l *recordList) set(uid types.UID, status *podSyncStatus) {
	list := *l
	i := 0
	for i < len(list) && list[i].uid < uid {
		i++
	}
	if i < len(list) && list[i].uid == uid {
		list[i].status = status
		return
	}
	list = append(list, recordEntry{})
	copy(list[i+1:], list[i:])
	list[i] = recordEntry{uid, status}
	*l = list
}

// remove drops the record filed under uid, if any.
func (l *recordList) remove(uid types.UID) {
	list := *l
	for i := range list {
		if list[i].uid == uid {
			copy(list[i:], list[i+1:])
			list[len(list)-1] = recordEntry{}
			*l = list[:len(list)-1]
			return
		}
	}
}

// uids is the UIDs filed, in ascending order, in a new slice.
func (l recordList) uids() []types.UID {
	out := make([]types.UID, len(l))
	for i := range l {
		out[i] = l[i].uid
	}
	return out
}
