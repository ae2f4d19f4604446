package kubelet

import (
	"slices"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/oracle"
)

// committedSet is, per UID, the query answers as of the last release of
// the pod lock that listed the UID among the kubelet's (kubeletCheck's
// committed state): two lists in UID order instead of a map, so that a
// release, which sets the answers of every UID, walks the probe and the
// lists side by side without hashing a UID.
type committedSet struct {
	uids []types.UID      // sorted, no repeats
	ans  []oracle.Answers // uids[i]'s answers
}

// get is uid's committed answers, and whether any release listed it.
func (s *committedSet) get(uid types.UID) (oracle.Answers, bool) {
	i, ok := slices.BinarySearch(s.uids, uid)
	if !ok {
		return oracle.Answers{}, false
	}
	return s.ans[i], true
}

// record sets the answers of every UID of uids to probe's.
func (s *committedSet) record(uids []types.UID, probe *history.Probe) {
	if !isStrictlySorted(uids) { // the view promises sorted; hold whatever it gives
		uids = slices.Compact(slices.Sorted(slices.Values(uids)))
	}
	walk := history.ProbeWalk{Probe: probe}
	j := 0 // s.uids before j are smaller than every UID still to record
	for _, uid := range uids {
		for j < len(s.uids) && s.uids[j] < uid {
			j++
		}
		if j == len(s.uids) || s.uids[j] != uid {
			s.uids = slices.Insert(s.uids, j, uid)
			s.ans = slices.Insert(s.ans, j, oracle.Answers{})
		}
		s.ans[j] = walk.Answers(uid)
		j++
	}
}

// reset empties s, its lists kept.
func (s *committedSet) reset() {
	clear(s.uids)
	*s = committedSet{uids: s.uids[:0], ans: s.ans[:0]}
}

func isStrictlySorted(uids []types.UID) bool {
	for i := 1; i < len(uids); i++ {
		if uids[i-1] >= uids[i] {
			return false
		}
	}
	return true
}
