package coverage

import (
	"slices"
	"strings"
	"testing"

	"github.com/podsim/podsim/history"
	"github.com/podsim/podsim/model/ops"
)

// killField is the kill field of uid's tuple now ("" before its first
// event).
func killField(tr *Tracker, uid string) string {
	p := tr.pods[uid]
	if p == nil {
		return ""
	}
	return strings.Split(string(tr.appendTuple(nil, uid, p)), "|")[3]
}

// wait is the ClientCall of a KillPodNow's wait on uid, call id; waited
// its ClientReturn, which carries no input (as the worlds record them).
func wait(uid string, id int) history.Event {
	return history.Event{Kind: history.ClientCall, Goroutine: "killpodnow/" + uid, ID: id, Input: ops.KillPodNowDone{UID: uid, ID: 100 + id}}
}

func waited(id int) history.Event {
	return history.Event{Kind: history.ClientReturn, Goroutine: "killpodnow", ID: id, Output: ops.Answer(true)}
}

// TestKillNowOpenUntilItsReturn: a pod's kill field is "now" while a
// KillPodNow's wait on it is open, from the wait's ClientCall to its
// ClientReturn (paired by ID: the return carries no input), and not after;
// two overlapping waits on one UID keep it until both returned; a restart
// closes every open wait (the old process's returns are not recorded);
// Reset forgets them. The return visits the pod: the tuple without "now" is
// reached then.
func TestKillNowOpenUntilItsReturn(t *testing.T) {
	kill := call("client/0", update("a", ops.Kill, 5, false))
	kill.ID = 1
	other := call("client/1", update("b", ops.Create, -1, false))
	other.ID = 3
	restarted := history.Event{Kind: history.Restarted}
	for _, c := range []struct {
		name string
		evs  []history.Event
		want []string // the kill field of a after each event
	}{
		{"one wait", []history.Event{kill, waited(1), wait("a", 2), begin("a", ops.SyncTerminatingPod), waited(2), end("a", ops.SyncTerminatingPod)},
			[]string{"grace", "grace", "now", "now", "grace", "grace"}},
		{"two overlapping", []history.Event{kill, wait("a", 2), wait("a", 4), waited(2), waited(4)},
			[]string{"grace", "now", "now", "now", "grace"}},
		{"another pod's wait", []history.Event{kill, other, wait("b", 2), waited(2)},
			[]string{"grace", "grace", "grace", "grace"}},
		{"an UpdatePod's return", []history.Event{kill, wait("a", 2), waited(1)},
			[]string{"grace", "now", "now"}},
		{"a restart between", []history.Event{kill, wait("a", 2), restarted, kill, waited(2), wait("a", 4), waited(4)},
			[]string{"grace", "now", "", "grace", "grace", "now", "grace"}},
	} {
		tr := New()
		var got []string
		for _, ev := range c.evs {
			tr.Observe(fakeView{}, &ev)
			got = append(got, killField(tr, "a"))
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: kill field %q, want %q", c.name, got, c.want)
		}
	}
	tr := New()
	for _, ev := range []history.Event{kill, wait("a", 2)} {
		tr.Observe(fakeView{}, &ev)
	}
	tr.Observe(fakeView{}, &[]history.Event{waited(2)}[0])
	if want := "?|-|-|now|-|run|kill>?|-|-|grace|-|run|kill"; !slices.Contains(tr.Coverage().TransitionKeys(), want) {
		t.Errorf("the return reached no %q: %q", want, tr.Coverage().TransitionKeys())
	}
	tr.Observe(fakeView{}, &[]history.Event{wait("a", 4)}[0])
	tr.Reset()
	tr.Observe(fakeView{}, &kill)
	if got := killField(tr, "a"); got != "grace" {
		t.Errorf("after Reset: kill field %q, want grace", got)
	}
}
