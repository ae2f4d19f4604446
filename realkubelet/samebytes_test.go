package realkubelet

import (
	"runtime"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/realkubelet/script"
)

// apiShapes102 is the run that showed the status pass's map order: held
// wake-ups, api-shapes seed 102. Pods a and b are both named "web"; its
// status-sync finds both holding a status, and upstream's syncBatch syncs
// them in its map's order. a first: a's sync deletes "web", b's Get finds
// nothing and b keeps its Failed status, so the next housekeeping does not
// re-create b. b first: b's Get finds a's object, takes it for a
// re-creation and drops b's status, so housekeeping re-creates b. Before
// kstatus.SyncOrdered that was Go's map order, and the trace was
// 8eb51af6… or 1dd7c0f2… (4–8 of 40 runs the second, in one process).
func apiShapes102(t *testing.T) Result { return runNamed(t, "api-shapes", 102, true) }

func runNamed(t *testing.T, family string, seed uint64, hold bool) Result {
	t.Helper()
	i := slices.IndexFunc(plan.KubeletFamilies(), func(f plan.Family) bool { return f.Name == family })
	f := plan.KubeletFamilies()[i]
	return Bubble(t, func() Result { return RunSeedWith(f, seed, RunOptions{HoldWakes: hold}) })
}

// TestStatusPassSameBytes replays that run 60 times at GOMAXPROCS 1 and
// 2: one trace. Before the fix 60 runs showed both traces with
// probability above 99 % (each run took the minority order 10–20 % of the
// time); a run costs a few milliseconds.
func TestStatusPassSameBytes(t *testing.T) { sameBytes(t, apiShapes102) }

// TestTimerBeforeMoveSameBytes: swarm-restart seed 27 (plain) restarts
// the kubelet at a step whose instant is also a tick of the eviction
// manager's cleanup poll. Before the driver let timer-woken goroutines run
// to rest ahead of the move (Apply), the poll's goroutine and the driver
// woke in either order, so the restart saw the eviction turn busy (and was
// skipped) or done: two traces, about half the runs each.
func TestTimerBeforeMoveSameBytes(t *testing.T) {
	sameBytes(t, func(t *testing.T) Result { return runNamed(t, "swarm-restart", 27, false) })
}

// sameBytes runs run 60 times at GOMAXPROCS 1 and 2 and wants one trace.
func sameBytes(t *testing.T, run func(*testing.T) Result) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	want := run(t).TraceSHA
	for _, procs := range []int{1, 2} {
		runtime.GOMAXPROCS(procs)
		for i := range 60 {
			if got := run(t).TraceSHA; got != want {
				t.Fatalf("GOMAXPROCS=%d, run %d: trace %s, first run %s", procs, i, got, want)
			}
		}
	}
}

// TestStatusPassOrderIsTheSeeds: the order of that pass is a move's, not
// fixed: the run's script records it (status-sync order=…), and the
// script with the order reversed reaches the other outcome — b's status
// dropped, b re-created — deterministically too. So fixing the map order
// hid no interleaving: the seed chooses it.
func TestStatusPassOrderIsTheSeeds(t *testing.T) {
	r := apiShapes102(t)
	at := slices.IndexFunc(r.Moves, func(m script.Move) bool { return m.Kind == script.MoveStatusSync && len(m.Order) == 2 })
	if at < 0 {
		t.Fatalf("no status-sync with an order of two pods in the run:\n%s", script.Format(r.Moves))
	}
	flipped := slices.Clone(r.Moves)
	flipped[at].Order = []types.UID{r.Moves[at].Order[1], r.Moves[at].Order[0]}
	same, a, b := runScript(t, r.Moves), runScript(t, flipped), runScript(t, flipped)
	if same.TraceSHA != r.TraceSHA {
		t.Fatalf("the script does not replay the run\n%s", firstDiff(r.Trace, same.Trace))
	}
	if a.TraceSHA == r.TraceSHA {
		t.Fatalf("reversing the pass's order %v changed nothing: the order is not what decides", r.Moves[at].Order)
	}
	if a.TraceSHA != b.TraceSHA {
		t.Fatalf("the reversed order is not deterministic\n%s", firstDiff(a.Trace, b.Trace))
	}
}
