package coverage

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestAppendTupleIsTheJoinedFields: the tuple visit builds in place is
// the seven fields joined by "|", for pods in every combination of the
// fields' values (cancelled work, a KillPodNow open, a restarted world,
// static pods ahead of, at the head of and behind their start line).
func TestAppendTupleIsTheJoinedFields(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	pick := func(vs ...string) string { return vs[r.IntN(len(vs))] }
	for round := range 2000 {
		tr := New()
		tr.phase, tr.restart = pick("run", "shutdown", "shut"), r.IntN(2) == 0
		for _, uid := range []string{"a", "b", "c"} {
			p := tr.pod(uid)
			p.state, p.work, p.pending = pick("?", "-", "S", "TR"), pick("-", "sync", "term"), pick("-", "create", "kill")
			p.kill, p.call = pick("-", "grace", "short"), pick("-", "sync", "rt-kill+del")
			p.cancelled, p.started, p.static, p.done = r.IntN(2) == 0, r.IntN(2) == 0, r.IntN(2) == 0, r.IntN(2) == 0
			p.fullName = pick("x", "y")
			if r.IntN(3) == 0 {
				tr.waitBegan(round, uid)
			}
		}
		for _, uid := range tr.order {
			p := tr.pods[uid]
			work, kill, world := p.work, p.kill, tr.phase
			if p.cancelled {
				work += "+cancel"
			}
			if tr.waiting(uid) {
				kill = "now"
			}
			if tr.restart {
				world += "+restarted"
			}
			want := strings.Join([]string{p.state, work, p.pending, kill, tr.staticPosition(uid, p), world, p.call}, "|")
			if got := string(tr.appendTuple([]byte("junk"), uid, p)); got != "junk"+want {
				t.Fatalf("round %d, %s: got %q, want %q", round, uid, got, "junk"+want)
			}
		}
	}
}
