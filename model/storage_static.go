package model

import (
	"slices"
	"strings"
)

// The static-pod maps of a State (SPEC §1.10), kept as the rest of storage.go
// explains: sorted slices shared copy-on-write between states.

func findStarted(s *State, fullname string) (int, bool) {
	if len(s.StartedStatic) <= smallRecords { // equality first, as findRecord
		for i := range s.StartedStatic {
			if s.StartedStatic[i].FullName == fullname {
				return i, true
			}
		}
	}
	return slices.BinarySearchFunc(s.StartedStatic, fullname, func(e StaticStarted, n string) int { return strings.Compare(e.FullName, n) })
}

// startedStatic is startedStaticPodsByFullname[fullname].
func (s *State) startedStatic(fullname string) (string, bool) {
	if i, ok := findStarted(s, fullname); ok {
		return s.StartedStatic[i].UID, true
	}
	return "", false
}

// setStartedStatic records uid as the started static pod of fullname.
func (s *State) setStartedStatic(fullname, uid string) {
	i, found := findStarted(s, fullname)
	s.StartedStatic = writable(s, ownStarted, s.StartedStatic, 1)
	if found {
		s.StartedStatic[i].UID = uid
		return
	}
	s.StartedStatic = slices.Insert(s.StartedStatic, i, StaticStarted{FullName: fullname, UID: uid})
}

// clearStartedStatic forgets fullname's started static pod.
func (s *State) clearStartedStatic(fullname string) {
	if i, found := findStarted(s, fullname); found {
		s.StartedStatic = slices.Delete(writable(s, ownStarted, s.StartedStatic, 0), i, i+1)
	}
}

func findWaiting(s *State, fullname string) (int, bool) {
	if len(s.WaitingStatic) <= smallRecords { // equality first, as findRecord
		for i := range s.WaitingStatic {
			if s.WaitingStatic[i].FullName == fullname {
				return i, true
			}
		}
	}
	return slices.BinarySearchFunc(s.WaitingStatic, fullname, func(e StaticWaiting, n string) int { return strings.Compare(e.FullName, n) })
}

// waitingStatic is waitingToStartStaticPodsByFullname[fullname].
func (s *State) waitingStatic(fullname string) []string {
	if i, ok := findWaiting(s, fullname); ok {
		return s.WaitingStatic[i].UIDs
	}
	return nil
}

// setWaitingStatic replaces fullname's wait list (empty: removes it). uids
// must be a fresh slice unless s owns its lists (appendWaiting, dropWaiting).
func (s *State) setWaitingStatic(fullname string, uids []string) {
	i, found := findWaiting(s, fullname)
	switch {
	case len(uids) == 0 && found:
		s.WaitingStatic = slices.Delete(writable(s, ownWaiting, s.WaitingStatic, 0), i, i+1)
	case len(uids) == 0:
	case found:
		s.WaitingStatic = writable(s, ownWaiting, s.WaitingStatic, 0)
		s.WaitingStatic[i].UIDs = uids
	default:
		s.WaitingStatic = slices.Insert(writable(s, ownWaiting, s.WaitingStatic, 1), i, StaticWaiting{FullName: fullname, UIDs: uids})
	}
}

// appendWaiting appends uid to fullname's wait list: in place if s owns its
// lists, else on a copy. (A wait list can grow long — a re-created UID
// joins again, and a started static pod's name is never scanned — so
// copying it at every join would make a long witness replay quadratic.)
func (s *State) appendWaiting(fullname, uid string) {
	waiting := s.waitingStatic(fullname)
	copied := s.own&ownLists == 0
	if copied || cap(waiting) == 0 { // a copy, or a new list, with room to grow
		waiting = append(make([]string, 0, 2*len(waiting)+4), waiting...)
	}
	s.setWaitingStatic(fullname, append(waiting, uid))
	if copied {
		s.ownListsIfOnlyOne()
	}
}

// dropWaiting removes the first n entries of fullname's wait list.
func (s *State) dropWaiting(fullname string, n int) {
	rest := s.waitingStatic(fullname)[n:]
	copied := s.own&ownLists == 0
	if copied {
		rest = slices.Clone(rest)
	}
	s.setWaitingStatic(fullname, rest)
	if copied {
		s.ownListsIfOnlyOne()
	}
}

// ownListsIfOnlyOne: a state that has just copied its only wait list (a
// static part has one full name) owns its lists from now on: the copy and
// the array of entries holding it (setWaitingStatic) are its alone. So a
// state that shares its lists after a fork copies a long list once, not at
// every join.
func (s *State) ownListsIfOnlyOne() {
	if len(s.WaitingStatic) <= 1 {
		s.own |= ownLists
	}
}
