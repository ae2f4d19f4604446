// Package sim is a seeded scheduler that runs simulated goroutines one at a
// time, so that every interleaving of a concurrent program is chosen by a
// seed and every run can be replayed byte for byte.
//
// # Model
//
// Each simulated goroutine (Scheduler.Go) is a real goroutine, but only the
// one holding the baton runs. Every operation on the primitives the
// Scheduler makes — Mutex, Signal (a 1-slot wake-up), Event (fire-once),
// Sleep, Yield, Go — is a scheduling point: the running goroutine offers the
// baton to the Strategy, which picks the next goroutine from the runnable
// ones (listed with the current goroutine first, then the rest in spawn
// order). Now and Intn are not scheduling points: they touch no state
// another goroutine could change in between.
//
// Time is a fakeclock.Clock that moves only when nothing is runnable, to the
// earliest pending timer; timers fire in (deadline, creation) order. Nothing
// runnable and no timer is the end of the run: success if every goroutine
// exited or only daemons wait on signals, events or timers, a DeadlockError
// (listing every blocked goroutine and what it waits on, sorted by name)
// otherwise. Runs are bounded in scheduling points and virtual time
// (LimitError); a panic in a simulated goroutine becomes a PanicError with
// its name and stack; a goroutine that holds the baton for longer than a
// real-time bound without reaching a scheduling point becomes a
// HotLoopError with its stack instead of hanging the process.
//
// A test can also drive a simulation step by step, as testing/synctest's
// Wait allows: start a goroutine for the next command (Go), run until
// nothing is runnable (RunUntilIdle, or RunFor to let virtual time pass),
// inspect, repeat. Narrated interaction scripts are built that way. Close unwinds
// every goroutine still parked, running its deferred calls, so sweeping many
// seeds in one process leaks nothing.
//
// # Determinism contract
//
// A run is a pure function of (program, Source, Options). Given the same
// three, Trace returns the same bytes — and TraceSHA256 the same hash — on
// every machine, at any GOMAXPROCS, with or without -race, because:
//
//   - exactly one simulated goroutine runs at a time, and the next one is
//     decided only by the Strategy from the Source's answers;
//   - every choice is drawn from the Source (Intn), and a choice with one
//     option is not drawn at all;
//   - the runnable set and every waiter queue are kept in spawn or arrival
//     order, never in map order;
//   - time is virtual: the only real time used is the HotLoop watchdog,
//     which can end a run with an error but never changes what a run does;
//   - the trace names goroutines and objects by the names the program gave
//     them and never holds pointers, goroutine ids or wall-clock time.
//
// The program under simulation must keep its side of the contract: reach
// shared state only through the Scheduler's primitives, start goroutines
// only with Go, read time only through Now, draw chance only through Intn,
// and not let map iteration order decide what it does.
//
// # Sources and strategies
//
// Source (Intn) is the one interface for choices: PCG for seeded sweeps
// (Derive gives each consumer of a seed its own stream), Replay for
// re-running a recorded choice list (Recorder records one), Bytes for
// go test -fuzz. Choice 0 always means "keep running the current goroutine"
// (or "the oldest waiter"), so lowering choices towards 0 removes
// preemptions: a shrinker's natural direction. RandomWalk picks uniformly;
// PCT (probabilistic concurrency testing) finds a bug of depth d among n
// goroutines in k steps with probability at least 1/(n·k^(d-1)) per run.
//
// # Cost
//
// A scheduling decision that hands the baton to another goroutine costs
// about as much as two channel operations (see BenchmarkDecision against
// BenchmarkRawHandoff); one that keeps the current goroutine costs a few
// nanoseconds. Trace records are 16 bytes and are rendered only on demand.
package sim
