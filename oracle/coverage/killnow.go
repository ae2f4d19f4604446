package coverage

// A KillPodNow's wait for its kill's completion (ops.KillPodNowDone) is a
// client call: its ClientCall carries the input and its UID, its
// ClientReturn only the call's ID, as every target records it (the
// simulated world and the real kubelet's driver alike). So the tracker
// keeps the waits in flight by ID, and a pod's kill field reads "now"
// while one on its UID is open. A restart closes them all: a world records
// no return of a call the ended process began.

// openWait is a KillPodNow's wait in flight: its call's ID and pod.
type openWait struct {
	id  int
	uid string
}

// waitBegan opens the wait of call id on uid.
func (t *Tracker) waitBegan(id int, uid string) {
	t.waits = append(t.waits, openWait{id: id, uid: uid})
}

// waitReturned closes the wait of call id, if it is one, and returns its
// UID ("" if it is not).
func (t *Tracker) waitReturned(id int) string {
	for i, w := range t.waits {
		if w.id == id {
			t.waits = append(t.waits[:i], t.waits[i+1:]...)
			return w.uid
		}
	}
	return ""
}

// waiting reports whether a KillPodNow's wait on uid is open.
func (t *Tracker) waiting(uid string) bool {
	for _, w := range t.waits {
		if w.uid == uid {
			return true
		}
	}
	return false
}
