package sdjudge

import (
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

func grace(g int64) *int64 { return &g }

const s = time.Second

// good is a shutdown that keeps the contract: groups 0 (grace 5 s) and
// 1000 (grace 2 s); a (priority 0, spec grace 1) and b (priority 500, no
// spec grace) in group 0, c (priority 2000, spec grace 30) and d
// (priority 1000) in group 1000. Group 0 is over when its kills return
// (3 s), group 1000 when its grace runs out (5 s: c's kill never returns).
func good() Shutdown {
	return Shutdown{
		Groups: []Group{{Priority: 1000, Grace: 2}, {Priority: 0, Grace: 5}},
		Snapshot: []Pod{{UID: "a", Priority: 0, SpecGrace: grace(1)}, {UID: "b", Priority: 500},
			{UID: "c", Priority: 2000, SpecGrace: grace(30)}, {UID: "d", Priority: 1000, SpecGrace: grace(2)}},
		Kills: []Kill{
			{UID: "a", Grace: grace(1), At: 1 * s, Returned: true, Back: 2 * s},
			{UID: "b", Grace: grace(5), At: 1 * s, Returned: true, Back: 3 * s},
			{UID: "c", Grace: grace(2), At: 3 * s},
			{UID: "d", Grace: grace(2), At: 3 * s, Returned: true, Back: 4 * s},
		},
		Ended: true, End: 5 * s,
	}
}

func TestGoodShutdown(t *testing.T) {
	if got := Judge(good()); got != nil {
		t.Fatalf("a shutdown that keeps the contract: %q", got)
	}
	// Below the lowest group: the first group; a group with no pods is
	// waited for by nobody.
	sd := good()
	sd.Groups = append(sd.Groups, Group{Priority: 600, Grace: 9})
	sd.Snapshot[0].Priority = -10
	if got := Judge(sd); got != nil {
		t.Fatalf("an empty group between: %q", got)
	}
	// A processing that has not ended is judged as far as it went.
	sd = good()
	sd.Ended, sd.Kills = false, sd.Kills[:2]
	if got := Judge(sd); got != nil {
		t.Fatalf("unended: %q", got)
	}
}

// TestBrokenShutdowns: each break of the contract is named, first.
func TestBrokenShutdowns(t *testing.T) {
	for _, c := range []struct {
		name   string
		breaks func(*Shutdown)
		want   string
	}{
		{"spec grace ignored", func(sd *Shutdown) { sd.Kills[0].Grace = grace(5) }, "killed pod a (priority 0, shutdown group 0) with grace 5 and evict false, want grace 1"},
		{"no override", func(sd *Shutdown) { sd.Kills[1].Grace = nil }, "killed pod b (priority 500, shutdown group 0) with grace none"},
		{"evicted", func(sd *Shutdown) { sd.Kills[3].Evict = true }, "killed pod d (priority 1000, shutdown group 1) with grace 2 and evict true"},
		{"between groups put high", func(sd *Shutdown) { sd.Kills[1].Grace, sd.Kills[1].At = grace(2), 3*s }, "killed pod b (priority 500, shutdown group 0) with grace 2"},
		{"not in the snapshot", func(sd *Shutdown) { sd.Kills = append(sd.Kills, Kill{UID: "e", Grace: grace(2), At: 3 * s}) }, "killed pod e, which is not in the snapshot"},
		{"twice", func(sd *Shutdown) { sd.Kills = append(sd.Kills, sd.Kills[3]) }, "killed pod d a second time"},
		{"left out", func(sd *Shutdown) { sd.Kills = sd.Kills[:3] }, "ended at 5s without killing pod d of its snapshot"},
		{"a group not at once", func(sd *Shutdown) { sd.Kills[1].At = 2 * s }, "pod a of group 0 at 1s, and pod b of the same group at 2s"},
		{"next group early", func(sd *Shutdown) { sd.Kills[2].At, sd.Kills[3].At = 2500*time.Millisecond, 2500*time.Millisecond }, "shutdown group 1 began at 2.5s, before shutdown group 0 was over"},
		{"next group late", func(sd *Shutdown) {
			sd.Kills[2].At, sd.Kills[3].At, sd.Kills[3].Back, sd.End = 6*s, 6*s, 7*s, 8*s
		}, "shutdown group 1 began at 6s, but shutdown group 0 was over at 3s (begun at 1s: its kills all returned)"},
		{"past the grace", func(sd *Shutdown) {
			sd.Kills[1].Back, sd.Kills[2].At, sd.Kills[3].At, sd.Kills[3].Back, sd.End = 9*s, 7*s, 7*s, 8*s, 9*s
		}, "shutdown group 1 began at 7s, but shutdown group 0 was over at 6s (begun at 1s: its grace ran out)"},
		{"descending order", func(sd *Shutdown) {
			sd.Kills[0].At, sd.Kills[1].At, sd.Kills[0].Back, sd.Kills[1].Back = 3*s, 3*s, 4*s, 4*s
			sd.Kills[2].At, sd.Kills[3].At, sd.Kills[3].Back = 1*s, 1*s, 2*s
		}, "shutdown group 1 began at 1s, before shutdown group 0 was over"},
		{"ended early", func(sd *Shutdown) { sd.End = 4 * s }, "the shutdown's processing ended at 4s, before shutdown group 1 was over"},
		{"ended late", func(sd *Shutdown) { sd.Kills[2].Returned, sd.Kills[2].Back = true, 4*s }, "the shutdown's processing ended at 5s, but shutdown group 1 was over at 4s"},
	} {
		t.Run(c.name, func(t *testing.T) {
			sd := good()
			c.breaks(&sd)
			got := Judge(sd)
			if len(got) == 0 || !strings.Contains(got[0], c.want) {
				t.Fatalf("got %q, want first %q", got, c.want)
			}
		})
	}
}

// TestGroupOf is the manager's grouping: the last group whose priority is
// at most the pod's, the first for any lower one.
func TestGroupOf(t *testing.T) {
	groups := []Group{{Priority: 0}, {Priority: 1000}, {Priority: 5000}}
	for prio, want := range map[int32]int{-1: 0, 0: 0, 999: 0, 1000: 1, 4999: 1, 5000: 2, 2_000_000_000: 2} {
		if got := groupOf(groups, prio); got != want {
			t.Errorf("priority %d: group %d, want %d", prio, got, want)
		}
	}
	if got := graceOf(Group{Grace: 3}, Pod{UID: types.UID("x"), SpecGrace: grace(3)}); got != 3 {
		t.Errorf("equal graces: %d", got)
	}
}
