// Package check checks recorded histories of the kubelet's pod workers
// against the sequential specification in package model: it partitions a
// history, replays a totally ordered one in linear time (Replay, with its
// witness walk), and hands the rest to porcupine (PorcupineModel,
// PorcupineMarkedModel, Check, CheckMarked). It imports model and
// porcupine; model never imports it.
//
// It is apart from the specification so that model reads in one sitting as
// what the pod workers must do (operations, state, step rules), while how a
// history is searched for a linearization, and what makes that fast, lives
// here. Nothing here decides what is legal: every verdict is model's steps
// (model.PartOp.ApplyOn, model.ClosedSet.Next) applied in some order.
//
// # Partitions and the witness fast path
//
// Partition splits a history by pod UID; static pods sharing a full name
// share a part, and SyncKnownPods is copied into every part that owns UIDs,
// restricted to them. Replay checks a totally ordered history (the
// simulation knows the order in which operations took effect) part by part
// in linear time: ok means linearizable; not ok means only that this order
// is not a linearization, and porcupine decides. Without markers Replay
// steps closed sets of states (model.ClosedSet), exploring the hidden
// steps. With WorkerStep markers (witness mode, see model's package doc)
// Replay steps one state per part, in place, with no closure at all, and
// the cost per operation is a few hundred nanoseconds. Before it plans the
// parts, witness mode walks the history whole, one state for every pod: a
// path there is a path of every part (the whole state only adds
// constraints), so a passing history needs no partition; a whole walk that
// fails decides nothing, and the parts do.
//
// SyncKnownPods copied into partitions may linearize at different instants
// in different parts: porcupine can only accept more, never reject a
// linearizable history. Replay over one global order is exact.
//
// # Mechanics
//
// replay.go (Replay walks the parts one after the other, each through its
// own list of operations; a pool of plans and part states reused from one
// Replay call to the next, whose memory model.Arena lends: the parts'
// record arrays and small lists, grown there too, the arena's next chunk
// twice the last, so a long Replay settles on one chunk instead of
// allocating one per call), replay_fast.go (witness mode looks for a
// witness path depth first, one state per part, a fork's other outcome
// kept aside with arrays of its own; only when there is none does Replay
// walk the set of every outcome, for the exact first failure),
// partition.go (integer union-find; one type switch and one UID lookup per
// operation through a small direct-mapped cache; nodes numbered without map
// lookups), partition_parts.go (each part's operations and its shares of
// every SyncKnownPods listed once, by counting sorts), partition_known.go
// (SyncKnownPods split by part in one pass, for Partition), porcupine.go
// and porcupine_marked.go (the adapters) and porcupine_chains.go
// (PorcupineMarkedModel hands porcupine each run of operations that nothing
// else in the part overlaps as one operation, a chain: such a run is
// linearized back to back in every linearization; DescribeOperation renders
// chains).
//
// # What it needs from model
//
// The in-place stepping and memory reuse of Replay's witness mode need
// model's copy-on-write layer, which stays in model beside State; model
// exports a small handle on it for this package (model's checker.go and
// arena.go, each name documented as being for the checker) rather than
// State's internals. See model's package doc, "What the checker uses".
package check
