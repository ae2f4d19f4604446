package realkubelet

import (
	"flag"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/realkubelet/finding"
	"github.com/podsim/podsim/realkubelet/planted"
	"github.com/podsim/podsim/realkubelet/script"
)

var plantedSeeds = flag.Int("planted.seeds", 40, "TestPlantedBugsInSweeps: seeds per family and mode")

func runScriptWith(t *testing.T, moves []script.Move, o RunOptions) Result {
	t.Helper()
	var r Result
	synctest.Test(t, func(t *testing.T) {
		d := newDriver(o)
		for _, m := range moves {
			d.Apply(m)
		}
		d.planSteps = len(d.Moves)
		r = d.Finish("script", 0)
	})
	return r
}

func mustParse(t *testing.T, text string) []script.Move {
	t.Helper()
	moves, _, err := script.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	return moves
}

// plantedScripts are, per planted bug, a script in which it fires. The
// decoy channel: before the exact predicates, its open completion was
// relabelled G2 (an unstarted cleanup), and the model failure credited to
// it; the lost kill and the lying syncer were credited likewise whenever an
// earlier finding of a known class preceded them in the run.
var plantedScripts = map[planted.Bug]string{
	planted.DecoyCompletion: "create a\nrelease a ok\nkill a grace=5\nrelease a ok\nrelease a ok\n",
	planted.LostKill:        "create a\nrelease a ok\nkill a grace=5\n",
	planted.LyingSyncer:     "create a\nrelease a ok\nremove a\nrelease a ok\nrelease a ok\n",
}

// TestPlantedBugsAreUnexplained: each bug planted in the driver leaves a
// finding no known deviation explains, alone and next to a known deviation
// in the same run (G3 and G2 on a static pod b, GC on c).
func TestPlantedBugsAreUnexplained(t *testing.T) {
	known := map[string]string{"": "", "G3": "remove b static=web\nkill s static=web grace=5\ncreate c\nrelease c terminal\n",
		// GA beside it (a force delete, then a kill override): the model
		// judges with GA's rule, which must not mend the bug
		// (TestGARejudgementKeepsOtherBugs: GA tried by judgeHistory).
		"GA": "create g\nrelease g ok\ndelete g grace=0\nkill g grace=5\nrelease g ok\n"}
	for bug, script := range plantedScripts {
		for class, with := range known {
			r := runScriptWith(t, mustParse(t, with+script), RunOptions{plant: bug})
			if len(r.Unexplained()) == 0 {
				t.Errorf("planted bug %d (with known deviation %q) not reported unexplained; findings %v", bug, class, r.Findings)
			}
			if class != "" && !slices.Contains(r.Classes(), class) {
				t.Errorf("planted bug %d: the known deviation %s was not found beside it: %v", bug, class, r.Classes())
			}
		}
		if r := runScriptWith(t, mustParse(t, script), RunOptions{}); r.Failed() {
			t.Errorf("script of planted bug %d fails without the bug: %v", bug, r.Findings)
		}
	}
}

// TestDroppedDeviationIsUnexplained: for every regression script, dropping
// the class it expects from the catalogue (the release's behaviour with
// that deviation switched off in the model, or its predicate gone) leaves
// an unexplained finding.
func TestDroppedDeviationIsUnexplained(t *testing.T) {
	dropped := map[string]bool{}
	for _, file := range scriptFiles(t) {
		moves, expect := readScript(t, file)
		for _, class := range expect {
			catalogue := slices.DeleteFunc(slices.Clone(finding.KnownDeviations), func(c string) bool { return c == class })
			r := runScriptWith(t, moves, RunOptions{catalogue: catalogue})
			if len(r.Unexplained()) == 0 {
				t.Errorf("%s without %s: nothing unexplained; findings %v", filepath.Base(file), class, r.Findings)
			}
			dropped[class] = true
		}
	}
	for _, file := range scriptsNeedingLogind(t) { // exercised where it can run (make real KUBE_ROOT=v1.37.2)
		_, expect := readScript(t, file)
		for _, class := range expect {
			t.Logf("%s (%s) needs a kubelet from v1.37: not run here", filepath.Base(file), class)
			dropped[class] = true
		}
	}
	for _, class := range finding.KnownDeviations {
		if !dropped[class] {
			t.Errorf("no regression script exercises %s", class)
		}
	}
}

// TestPlantedBugsInSweeps plants each bug into the families where it can
// fire, both wake-up modes, and requires every seed in which it fired to
// report an unexplained finding (-planted.seeds per family and mode).
func TestPlantedBugsInSweeps(t *testing.T) {
	families := []string{"early-kill", "kill-during-create", "swarm", "grace-shortening", "static-restart-same-uid"}
	for _, bug := range []planted.Bug{planted.DecoyCompletion, planted.LostKill, planted.LyingSyncer} {
		fired, hidden := 0, 0
		for _, f := range plan.Families() {
			if !slices.Contains(families, f.Name) {
				continue
			}
			for _, hold := range []bool{false, true} {
				for seed := uint64(1); seed <= uint64(*plantedSeeds); seed++ {
					var r Result
					var planted bool
					synctest.Test(t, func(t *testing.T) {
						st := plan.SeedStreams(seed)
						d := newDriver(RunOptions{HoldWakes: hold, plant: bug})
						d.Generate(f.Generate(st.Plan), st.Schedule, st.Faults, hold)
						d.planSteps = len(d.Moves)
						r = d.Finish(f.Name, seed)
						planted = d.planted
					})
					if !planted {
						continue
					}
					fired++
					if len(r.Unexplained()) == 0 {
						hidden++
						t.Errorf("planted bug %d hidden in %s seed %d (hold %v): classes %s", bug, f.Name, seed, hold, strings.Join(r.Classes(), ","))
					}
				}
			}
		}
		t.Logf("planted bug %d: fired in %d runs, hidden in %d", bug, fired, hidden)
		if fired == 0 {
			t.Errorf("planted bug %d never fired", bug)
		}
	}
}

// TestKillPodNowIsReal: the real killPodNow (killnow.go) returns once its
// pod terminated, and times out (at max(10 s, 1.5 × grace) of the bubble's
// clock) on a finished pod, whose completion G1 leaves open.
func TestKillPodNowIsReal(t *testing.T) {
	cases := []struct {
		script, want string
	}{
		{"create a\nrelease a ok\nkill-now a grace=5\nrelease a ok\nrelease a ok\n", "return killpodnow/1 true"},
		{"delete a grace=0\nrelease a ok\nrelease a ok\nkill-now a grace=20\n", "return killpodnow/1 false"},
	}
	for _, c := range cases {
		r := runScriptWith(t, mustParse(t, c.script), RunOptions{})
		var got string
		for _, line := range r.Trace {
			if strings.Contains(line, "return killpodnow/") {
				got = line
			}
		}
		if !strings.HasSuffix(got, c.want) {
			t.Errorf("%q: killPodNow's return %q, want %q", c.script, got, c.want)
		}
		if f := strings.Fields(got); strings.HasSuffix(c.want, "false") && len(f) > 1 {
			// The kill is at step 4 (0.4 s); the driver sees the return at
			// its next step or settle poll (1 s apart) after the timeout.
			at, err := time.ParseDuration(f[1])
			if err != nil || at < 30400*time.Millisecond || at > 31400*time.Millisecond {
				t.Errorf("%q: timed out at %q, want 1.5 × 20 s after the kill", c.script, got)
			}
		}
	}
}

// TestGARejudgementKeepsOtherBugs: judgeHistory judges a history again
// with GA's rule when the run offered a kill override with a zero deletion
// grace and no direct check named GA. A bug of another kind in the same
// run (the lying syncer, on pod b) must stay unexplained: GA's rule mends
// the cancel of pod a, not b's history. Without the plant the same script
// is explained (GA and GC).
func TestGARejudgementKeepsOtherBugs(t *testing.T) {
	moves, _ := readScript(t, "testdata/GA-cancel-after-zero-deletion.script")
	lying := mustParse(t, "create b\nrelease b ok\nremove b\nrelease b ok\nrelease b ok\n")
	all := append(lying, moves...)
	if r := runScriptWith(t, all, RunOptions{}); len(r.Unexplained()) > 0 || !slices.Contains(r.Classes(), "GA") {
		t.Fatalf("without the plant: findings %v, want GA and nothing unexplained", r.Findings)
	}
	r := runScriptWith(t, all, RunOptions{plant: planted.LyingSyncer})
	if len(r.Unexplained()) == 0 {
		t.Errorf("the lying syncer beside GA's cancel was explained away: %v", r.Findings)
	}
}
