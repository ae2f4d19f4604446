package safety

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/oracle"
	"k8s.io/apimachinery/pkg/types"
)

// safetyCase is one situation told twice: legal, the oracle must accept
// it; bad (one step changed), it must report inv.
type safetyCase struct {
	name       string
	inv        string
	legal, bad func(s *safetyScript)
}

var (
	sfA1     = safetyPodAt("a", 1)
	sfA2     = safetyPodAt("a", 2)
	sfNoKill = ops.KillOptions{}
	sfEvict  = ops.KillOptions{Evict: true}
	sfGrace  = func(g int64) ops.KillOptions { return ops.KillOptions{GraceOverride: g, HasGraceOverride: true} }
	sfWithCh = func(id int) ops.KillOptions { return ops.KillOptions{CompletionID: id} }
	sfKill   = func(p ops.Pod, ko ops.KillOptions) ops.UpdatePod {
		return ops.UpdatePod{Type: ops.Kill, Pod: p, Kill: ko}
	}
	sfUpdate = func(p ops.Pod) ops.UpdatePod { return ops.UpdatePod{Type: ops.Update, Pod: p} }
)

// running: a created and its SyncPod(v1) in flight.
func sfRunning(s *safetyScript) {
	s.create(sfA1)
	s.worker("a", nil)
	s.begin("a", ops.SyncPod, 1, 0)
}

// killedAfterSync: a synced once, then killed (TR).
func sfKilledAfterSync(s *safetyScript) {
	s.create(sfA1)
	s.syncPod("a", 1)
	s.killPod(sfA1, sfNoKill)
}

// takeAck is the worker taking a terminating update and acknowledging it.
func sfTakeAck(s *safetyScript, uid string) {
	s.worker(uid, nil)
	s.worker(uid, func() { s.state(uid, "T") })
}

var safetyS1to5 = []safetyCase{
	{"S1 second callback while one runs", "S1",
		func(s *safetyScript) { s.create(sfA1); s.syncPod("a", 1); s.syncPod("a", 1) },
		func(s *safetyScript) { sfRunning(s); s.begin("a", ops.SyncPod, 1, 0) }},
	{"S2 SyncTerminatingPod again after it succeeded", "S2",
		func(s *safetyScript) {
			sfKilledAfterSync(s)
			s.terminating("a", 1, 30, ops.Failed)
			s.terminating("a", 1, 30, ops.OK)
		},
		func(s *safetyScript) {
			sfKilledAfterSync(s)
			sfTakeAck(s, "a")
			s.begin("a", ops.SyncTerminatingPod, 1, 30)
			s.end("a", ops.SyncTerminatingPod, ops.OK, false)
			s.worker("a", nil) // the pod stays in T
			sfTakeAck(s, "a")
			s.begin("a", ops.SyncTerminatingPod, 1, 30)
		}},
	{"S2 runtime kill after SyncPod", "S2",
		func(s *safetyScript) { s.create(sfA1); s.syncPod("a", 1) },
		func(s *safetyScript) {
			s.create(sfA1)
			s.syncPod("a", 1)
			sfTakeAck(s, "a")
			s.begin("a", ops.SyncTerminatingRuntimePod, 0, 0)
		}},
	{"S3 SyncPod taken after the kill", "S3",
		func(s *safetyScript) { sfKilledAfterSync(s); s.terminating("a", 1, 30, ops.OK) },
		func(s *safetyScript) { sfKilledAfterSync(s); s.syncPod("a", 1) }},
	{"S3 B16 window: taken before the kill, begins after", "S3",
		func(s *safetyScript) {
			s.create(sfA1)
			s.worker("a", nil)
			s.killPod(sfA1, sfNoKill) // cancels the context the worker took
			s.begin("a", ops.SyncPod, 1, 0)
		},
		func(s *safetyScript) {
			s.create(sfA1)
			s.worker("a", nil)
			s.update(sfKill(sfA1, sfNoKill), func() { s.state("a", "TR") })
			s.begin("a", ops.SyncPod, 1, 0)
		}},
	{"S3 kill while SyncPod runs cancels it", "S3",
		func(s *safetyScript) {
			sfRunning(s)
			s.killPod(sfA1, sfNoKill)
			s.end("a", ops.SyncPod, ops.Canceled, false)
			s.worker("a", nil)
			s.terminating("a", 1, 30, ops.OK)
		},
		func(s *safetyScript) { sfRunning(s); s.update(sfKill(sfA1, sfNoKill), func() { s.state("a", "TR") }) }},
	{"S3 no SyncPod after isTerminal", "S3",
		func(s *safetyScript) {
			sfRunning(s)
			s.end("a", ops.SyncPod, ops.OK, true)
			s.worker("a", func() { s.state("a", "T") })
			s.terminating("a", 1, 30, ops.OK)
		},
		func(s *safetyScript) {
			sfRunning(s)
			s.end("a", ops.SyncPod, ops.OK, true)
			s.worker("a", nil)
			s.syncPod("a", 1)
		}},
	{"S3 orphan driving cancels (G4)", "S3",
		func(s *safetyScript) { sfRunning(s); s.syncKnown(nil, func() { s.cancel("a"); s.state("a", "TR") }) },
		func(s *safetyScript) { sfRunning(s); s.syncKnown(nil, func() { s.state("a", "TR") }) }},
	{"S4 acknowledged while SyncPod runs", "S4",
		func(s *safetyScript) {
			sfRunning(s)
			s.killPod(sfA1, sfNoKill)
			s.end("a", ops.SyncPod, ops.Canceled, false)
			sfTakeAck(s, "a")
		},
		func(s *safetyScript) {
			sfRunning(s)
			s.update(sfKill(sfA1, sfNoKill), func() { s.cancel("a"); s.state("a", "T") })
		}},
	{"S5 SyncTerminatedPod only after a successful SyncTerminatingPod", "S5",
		func(s *safetyScript) {
			sfKilledAfterSync(s)
			s.terminating("a", 1, 30, ops.OK)
			s.terminated("a", 1, ops.OK)
		},
		func(s *safetyScript) {
			sfKilledAfterSync(s)
			s.terminating("a", 1, 30, ops.Failed)
			s.terminated("a", 1, ops.OK)
		}},
	{"S5 restart shortcut needs a terminal phase", "S5",
		func(s *safetyScript) {
			p := sfA1
			p.Phase = ops.PhaseSucceeded
			s.update(ops.UpdatePod{Type: ops.Create, Pod: p}, func() { s.state("a", "D") })
			s.terminated("a", 1, ops.OK)
		},
		func(s *safetyScript) {
			s.update(ops.UpdatePod{Type: ops.Create, Pod: sfA1}, func() { s.state("a", "D") })
			s.terminated("a", 1, ops.OK)
		}},
}

var safetyS6to10 = []safetyCase{
	{"S6 no callback after finish", "S6",
		func(s *safetyScript) {
			sfKilledAfterSync(s)
			s.terminating("a", 1, 30, ops.OK)
			s.terminated("a", 1, ops.Failed)
			s.terminated("a", 1, ops.OK)
		},
		func(s *safetyScript) {
			sfKilledAfterSync(s)
			s.terminating("a", 1, 30, ops.OK)
			s.terminated("a", 1, ops.OK)
			s.terminated("a", 1, ops.OK)
		}},
	{"S6 a finished pod ignores updates", "S6",
		func(s *safetyScript) {
			sfKilledAfterSync(s)
			s.terminating("a", 1, 30, ops.OK)
			s.terminated("a", 1, ops.OK)
			s.update(sfKill(sfA1, sfEvict), nil)
		},
		func(s *safetyScript) {
			sfKilledAfterSync(s)
			s.terminating("a", 1, 30, ops.OK)
			s.terminated("a", 1, ops.OK)
			s.update(sfKill(sfA1, sfEvict), func() { s.evicted["a"] = true; s.state("a", "F") })
		}},
	{"S7 terminated while SyncTerminatingPod runs", "S7",
		func(s *safetyScript) { sfKilledAfterSync(s); s.terminating("a", 1, 30, ops.OK) },
		func(s *safetyScript) {
			sfKilledAfterSync(s)
			sfTakeAck(s, "a")
			s.begin("a", ops.SyncTerminatingPod, 1, 30)
			s.update(ops.UpdatePod{Type: ops.Sync, Pod: sfA1}, func() { s.state("a", "D") })
		}},
	{"S8 termination request reverts", "S8",
		func(s *safetyScript) { sfKilledAfterSync(s); s.cs("client/1", nil) },
		func(s *safetyScript) { sfKilledAfterSync(s); s.cs("client/1", func() { s.state("a", "S") }) }},
	{"S8 podsSynced reverts", "S8",
		func(s *safetyScript) { s.syncKnown(nil, nil); s.cs("client/1", nil) },
		func(s *safetyScript) { s.syncKnown(nil, nil); s.cs("client/1", func() { s.view.synced = false }) }},
	{"S9 unstarted cleanup keeps the lattice (G3)", "S9",
		func(s *safetyScript) {
			s.create(safetyStaticPod("a", 1))
			s.killPod(safetyStaticPod("a", 1), sfNoKill)
			s.worker("a", func() { s.state("a", "F") })
		},
		func(s *safetyScript) {
			s.create(safetyStaticPod("a", 1))
			s.killPod(safetyStaticPod("a", 1), sfNoKill)
			s.worker("a", func() {
				s.state("a", "F")
				a := s.view.answers["a"]
				a.ContainersBeTerminating = false
				s.view.answers["a"] = a
			})
		}},
	{"S9 mirror pod terminating with its static pod", "S9",
		func(s *safetyScript) {
			s.create(safetyStaticPod("a", 1))
			s.syncPod("a", 1)
			s.killPod(safetyStaticPod("a", 1), sfNoKill)
		},
		func(s *safetyScript) {
			s.create(safetyStaticPod("a", 1))
			s.syncPod("a", 1)
			s.manualMirror = true
			s.killPod(safetyStaticPod("a", 1), sfNoKill)
		}},
	{"S9 mirror pod terminating with no static pod terminating", "S9",
		func(s *safetyScript) { s.create(safetyStaticPod("a", 1)); s.syncPod("a", 1) },
		func(s *safetyScript) {
			s.create(safetyStaticPod("a", 1))
			s.syncPod("a", 1)
			s.manualMirror = true
			s.cs("client/1", func() { s.view.mirror["web_default"] = true })
		}},
	{"S10 unknown before the first SyncKnownPods could run", "S10",
		func(s *safetyScript) { s.query("z") },
		func(s *safetyScript) {
			s.view.unknown["z"] = oracle.Answers{}
			s.query("z")
		}},
	{"S10 unknown after SyncKnownPods is not terminating", "S10",
		func(s *safetyScript) { s.syncKnown(nil, nil); s.query("z") },
		func(s *safetyScript) {
			s.syncKnown(nil, nil)
			a := safetyUnknown(true)
			a.TerminationRequested = true
			s.view.unknown["z"] = a
			s.query("z")
		}},
	{"S10 podsSynced only after SyncKnownPods", "S10",
		func(s *safetyScript) { s.create(sfA1) },
		func(s *safetyScript) { s.view.synced = true; s.create(sfA1) }},
}

func sfRuntimeKill(uid string) ops.UpdatePod {
	return ops.UpdatePod{Type: ops.Kill, Pod: ops.Pod{UID: uid, Name: "pod-" + uid, Namespace: "default"},
		RuntimeOnly: true, Kill: sfGrace(1)}
}

// query reads IsPodKnownTerminated of uid, as a subsystem does.
func (s *safetyScript) query(uid string) {
	s.call("client/1", ops.Query{Kind: ops.IsPodKnownTerminated, UID: uid}, nil,
		func() ops.Output { return ops.Answer(s.view.Answers(types.UID(uid)).KnownTerminated) })
}

// TestSafetyInvariantPairs: for every invariant, a legal story passes and
// the same story with one step changed is reported under that invariant.
func TestSafetyInvariantPairs(t *testing.T) {
	cases := slices.Concat(safetyS1to5, safetyS6to10, safetyS11to15, safetyS16to19)
	covered := map[string]bool{}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newSafetyScript()
			c.legal(s)
			if vs := s.finish(); len(vs) > 0 {
				t.Errorf("legal story: got %d violations, want none:%s", len(vs), safetyDescribe(vs))
			}
			s = newSafetyScript()
			c.bad(s)
			vs := s.finish()
			if got := safetyInvariants(vs); !slices.Contains(got, c.inv) {
				t.Fatalf("bad story: got violations of %v, want %s:%s", got, c.inv, safetyDescribe(vs))
			}
			for _, v := range vs {
				if v.Oracle != "safety" || !strings.HasSuffix(v.Message, "("+v.Invariant+")") || v.Seq == 0 {
					t.Errorf("got violation %+v, want Oracle safety, a message ending (%s) and an event seq", v, v.Invariant)
				}
			}
			covered[c.inv] = true
		})
	}
	for n := 1; n <= 19; n++ {
		if inv := "S" + strconv.Itoa(n); !covered[inv] {
			t.Errorf("no case for %s", inv)
		}
	}
}
