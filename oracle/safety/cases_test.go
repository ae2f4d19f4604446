package safety

import (
	"github.com/podsim/podsim/model/ops"
)

// The S11–S19 halves of TestSafetyInvariantPairs.

var safetyS11to15 = []safetyCase{
	{"S11 first grace is the override", "S11",
		func(s *safetyScript) {
			s.create(sfA1)
			s.syncPod("a", 1)
			s.killPod(sfA1, sfGrace(2))
			s.terminating("a", 1, 2, ops.OK)
		},
		func(s *safetyScript) {
			s.create(sfA1)
			s.syncPod("a", 1)
			s.killPod(sfA1, sfGrace(2))
			s.terminating("a", 1, 30, ops.OK)
		}},
	{"S11 explicit 0 yields 1", "S11",
		func(s *safetyScript) { s.create(sfA1); s.killPod(sfA1, sfGrace(0)); s.terminating("a", 1, 1, ops.OK) },
		func(s *safetyScript) { s.create(sfA1); s.killPod(sfA1, sfGrace(0)); s.terminating("a", 1, 0, ops.OK) }},
	{"S11 grace never rises", "S11",
		func(s *safetyScript) {
			s.create(sfA1)
			s.killPod(sfA1, sfGrace(10))
			s.terminating("a", 1, 10, ops.Failed)
			s.killPod(sfA1, sfGrace(5))
			s.terminating("a", 1, 5, ops.OK)
		},
		func(s *safetyScript) {
			s.create(sfA1)
			s.killPod(sfA1, sfGrace(10))
			s.terminating("a", 1, 10, ops.Failed)
			s.killPod(sfA1, sfGrace(20))
			s.terminating("a", 1, 20, ops.OK)
		}},
	{"S11 a shorter grace cancels the running call", "S11",
		func(s *safetyScript) {
			sfKilledAfterSync(s)
			sfTakeAck(s, "a")
			s.begin("a", ops.SyncTerminatingPod, 1, 30)
			s.killPod(sfA1, sfGrace(5))
			s.end("a", ops.SyncTerminatingPod, ops.Canceled, false)
			s.worker("a", nil)
			s.terminating("a", 1, 5, ops.OK)
		},
		func(s *safetyScript) {
			sfKilledAfterSync(s)
			sfTakeAck(s, "a")
			s.begin("a", ops.SyncTerminatingPod, 1, 30)
			s.update(sfKill(sfA1, sfGrace(5)), nil)
		}},
	{"S12 the last SyncPod saw the newest version", "S12",
		func(s *safetyScript) {
			s.create(sfA1)
			s.syncPod("a", 1)
			s.update(sfUpdate(sfA2), nil)
			s.syncPod("a", 2)
		},
		func(s *safetyScript) {
			s.create(sfA1)
			s.syncPod("a", 1)
			s.update(sfUpdate(sfA2), nil)
			s.syncPod("a", 1)
		}},
	{"S13 an update after the kill runs as termination", "S13",
		func(s *safetyScript) {
			sfRunning(s)
			s.killPod(sfA1, sfNoKill)
			s.update(sfUpdate(sfA2), nil)
			s.end("a", ops.SyncPod, ops.Canceled, false)
			s.worker("a", nil)
			s.terminating("a", 2, 30, ops.OK)
		},
		func(s *safetyScript) {
			sfRunning(s)
			s.killPod(sfA1, sfNoKill)
			s.update(sfUpdate(sfA2), nil)
			s.end("a", ops.SyncPod, ops.Canceled, false)
			s.worker("a", nil)
			s.syncPod("a", 2)
		}},
	{"S13 an update does not clear the request", "S13",
		func(s *safetyScript) { sfKilledAfterSync(s); s.update(sfUpdate(sfA2), nil) },
		func(s *safetyScript) { sfKilledAfterSync(s); s.update(sfUpdate(sfA2), func() { s.state("a", "S") }) }},
	{"S14 completion fires once terminated", "S14",
		func(s *safetyScript) { s.lifecycle("a") },
		func(s *safetyScript) {
			s.create(sfA1)
			s.update(sfKill(sfA1, sfWithCh(1)), func() { s.state("a", "TR"); s.fire("a", 1) })
		}},
	{"S14 completion fires once", "S14",
		func(s *safetyScript) { s.lifecycle("a") },
		func(s *safetyScript) { s.lifecycle("a"); s.cs("client/1", func() { s.fire("a", 1) }) }},
	{"S14 completion of a kill of a finished pod fires at once (G1)", "S14",
		func(s *safetyScript) {
			s.lifecycle("b")
			s.create(sfA1)
			s.killPod(sfA1, sfNoKill)
			s.terminating("a", 1, 30, ops.OK)
			s.terminated("a", 1, ops.OK)
			s.update(sfKill(sfA1, sfWithCh(7)), func() { s.fire("a", 7) })
		},
		func(s *safetyScript) {
			s.create(sfA1)
			s.killPod(sfA1, sfNoKill)
			s.terminating("a", 1, 30, ops.OK)
			s.terminated("a", 1, ops.OK)
			s.update(sfKill(sfA1, sfWithCh(7)), nil)
		}},
	{"S14 a completion no kill carried", "S14",
		func(s *safetyScript) { s.lifecycle("a") },
		func(s *safetyScript) { s.create(sfA1); s.cs("client/1", func() { s.fire("a", 9) }) }},
	{"S15 one started static pod per full name", "S15",
		func(s *safetyScript) {
			s.create(safetyStaticPod("a", 1))
			s.syncPod("a", 1)
			s.killPod(safetyStaticPod("a", 1), sfNoKill)
			s.terminating("a", 1, 30, ops.OK)
			s.terminated("a", 1, ops.OK)
			s.create(safetyStaticPod("b", 1))
			s.syncPod("b", 1)
		},
		func(s *safetyScript) {
			s.create(safetyStaticPod("a", 1))
			s.syncPod("a", 1)
			s.create(safetyStaticPod("b", 1))
			s.syncPod("b", 1)
		}},
	{"S15 eligible waiters start in arrival order", "S15",
		func(s *safetyScript) {
			s.create(safetyStaticPod("b", 1))
			s.create(safetyStaticPod("c", 1))
			s.killPod(safetyStaticPod("b", 1), sfNoKill)
			s.syncPod("c", 1)
		},
		func(s *safetyScript) {
			s.create(safetyStaticPod("b", 1))
			s.create(safetyStaticPod("c", 1))
			s.syncPod("c", 1)
		}},
}

var safetyS16to19 = []safetyCase{
	{"S16 a reused UID starts after the old incarnation finished", "S16",
		func(s *safetyScript) { s.lifecycle("a"); s.create(sfA2); s.syncPod("a", 2) },
		func(s *safetyScript) {
			sfKilledAfterSync(s)
			s.terminating("a", 1, 30, ops.Failed)
			s.syncKnown(nil, func() { s.state("a", "") })
			s.create(sfA2)
			s.syncPod("a", 2)
		}},
	{"S17 a runtime-only sync creates no record", "S17",
		func(s *safetyScript) {
			s.update(ops.UpdatePod{Type: ops.Sync, Pod: ops.Pod{UID: "r"}, RuntimeOnly: true}, nil)
		},
		func(s *safetyScript) {
			s.update(ops.UpdatePod{Type: ops.Sync, Pod: ops.Pod{UID: "r"}, RuntimeOnly: true}, func() { s.state("r", "P") })
		}},
	{"S17 a runtime kill of a terminated pod is ignored", "S17",
		func(s *safetyScript) {
			sfKilledAfterSync(s)
			s.terminating("a", 1, 30, ops.OK)
			s.update(sfRuntimeKill("a"), nil)
		},
		func(s *safetyScript) {
			sfKilledAfterSync(s)
			s.terminating("a", 1, 30, ops.OK)
			s.update(sfRuntimeKill("a"), func() { s.deleted["a"] = true; s.state("a", "D") })
		}},
	{"S17 a runtime kill does not re-drive a terminated pod", "S17",
		func(s *safetyScript) {
			sfKilledAfterSync(s)
			s.terminating("a", 1, 30, ops.OK)
			s.terminated("a", 1, ops.Failed)
			s.update(sfRuntimeKill("a"), nil)
			s.update(ops.UpdatePod{Type: ops.Sync, Pod: sfA1}, nil) // the work queue's retry
			s.terminated("a", 1, ops.OK)
		},
		func(s *safetyScript) {
			sfKilledAfterSync(s)
			s.terminating("a", 1, 30, ops.OK)
			s.terminated("a", 1, ops.Failed)
			s.update(sfRuntimeKill("a"), nil)
			s.terminated("a", 1, ops.OK)
		}},
	{"S17 a runtime kill never leads to SyncTerminatedPod", "S17",
		func(s *safetyScript) {
			s.update(sfRuntimeKill("r"), func() { s.state("r", "TR") })
			sfTakeAck(s, "r")
			s.begin("r", ops.SyncTerminatingRuntimePod, 0, 0)
			s.end("r", ops.SyncTerminatingRuntimePod, ops.OK, false)
			s.worker("r", func() { s.state("r", "") })
		},
		func(s *safetyScript) {
			s.update(sfRuntimeKill("r"), func() { s.state("r", "TR") })
			sfTakeAck(s, "r")
			s.begin("r", ops.SyncTerminatingRuntimePod, 0, 0)
			s.end("r", ops.SyncTerminatingRuntimePod, ops.OK, false)
			s.worker("r", func() { s.deleted["r"] = true; s.state("r", "D") })
			s.terminated("r", 0, ops.OK)
		}},
	{"S18 only unstarted orphans are purged unfinished", "S18",
		func(s *safetyScript) { s.create(sfA1); s.syncKnown(nil, func() { s.state("a", "") }) },
		func(s *safetyScript) {
			s.create(sfA1)
			s.syncPod("a", 1)
			s.syncKnown(nil, func() { s.state("a", "") })
		}},
	{"S18 a desired finished pod is purged only for a restart", "S18",
		func(s *safetyScript) {
			sfKilledAfterSync(s)
			s.update(ops.UpdatePod{Type: ops.Create, Pod: sfA2}, nil) // dropped: restart requested
			s.terminating("a", 1, 30, ops.OK)
			s.terminated("a", 1, ops.OK)
			s.syncKnown([]string{"a"}, func() { s.state("a", "") })
		},
		func(s *safetyScript) {
			sfKilledAfterSync(s)
			s.terminating("a", 1, 30, ops.OK)
			s.terminated("a", 1, ops.OK)
			s.syncKnown([]string{"a"}, func() { s.state("a", "") })
		}},
	{"S18 purged UIDs are absent from the result", "S18",
		func(s *safetyScript) { s.lifecycle("a") },
		func(s *safetyScript) {
			s.create(sfA1)
			s.call("client/0", ops.SyncKnownPods{}, func() { s.view.synced = true; s.state("a", "") },
				func() ops.Output { return ops.KnownPods{{UID: "a", Orphan: true}} })
		}},
	{"S18 records vanish only through SyncKnownPods", "S18",
		func(s *safetyScript) { s.create(sfA1); s.syncKnown(nil, func() { s.state("a", "") }) },
		func(s *safetyScript) { s.create(sfA1); s.cs("client/1", func() { s.state("a", "") }) }},
	{"S18 no callback after a purge", "S18",
		func(s *safetyScript) { s.create(sfA1); s.syncKnown(nil, func() { s.state("a", "") }) },
		func(s *safetyScript) {
			s.create(sfA1)
			s.worker("a", nil)
			s.syncKnown(nil, func() { s.state("a", "") })
			s.begin("a", ops.SyncPod, 1, 0)
		}},
	{"S19 content is removed only when evicted, or deleted and terminated", "S19",
		func(s *safetyScript) { s.create(sfA1); s.killPod(sfA1, sfEvict) },
		func(s *safetyScript) {
			s.create(sfA1)
			s.update(sfKill(sfA1, sfNoKill), func() { s.evicted["a"] = true; s.state("a", "TR") })
		}},
}
