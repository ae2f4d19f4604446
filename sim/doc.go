// Package sim is a seeded scheduler that runs simulated goroutines one at a
// time, so that every interleaving of a concurrent program is chosen by a
// seed and every run can be replayed byte for byte.
//
// # Model
//
// Each simulated goroutine (Scheduler.Go) runs on a runtime coroutine (the
// mechanism behind iter.Pull), and only the one holding the baton runs, on
// the driver's OS thread: a driver loop resumes the first, and at each
// handoff the holder resumes the next itself, or yields back to the one
// that resumed it (the baton.go comment has how). A coroutine whose
// goroutine has exited carries the next one the process starts, with the
// stack it has grown (carrier.go). Every operation on the primitives the
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
// # The baton and the watchdog
//
// A handoff is one or two coroutine switches: the holder records the next
// holder and resumes it, or, if that one is waiting under it in the chain
// of coroutines resumed and not yet yielded, yields back down to it (one
// switch per link; a goroutine handing the baton back to the one that
// handed it over is one switch); before, every handoff was a yield to
// the driver loop and a resume from it. No Go scheduler, no channel, no other
// OS thread is involved, which is why coroutines replaced the earlier
// baton (a real goroutine per simulated one, each parked on a channel):
// BenchmarkDecision measures a Yield that hands the baton over (with its
// trace record; BenchmarkDecisionNoRecord without it),
// BenchmarkCoroutineRoundTrip the bare next/yield round trip it is built
// on, BenchmarkRawHandoff the channel handoff the old baton was built on.
//
// A coroutine runs on its resumer's thread, so the driver is suspended
// while a simulated goroutine runs and cannot watch it, and a goroutine
// that never yields never gives its resumer back. With the HotLoop
// watchdog on, Run's goroutine resumes a driver coroutine (a carrier
// running the driver loop) and stays suspended in it for the segment; the
// driver registers the segment with the process's one watcher goroutine,
// which reads a word bumped at every handoff a few times per bound. If the
// word stops moving for Options.HotLoop, the watcher claims the segment
// (a compare-and-swap on that word, which every handoff and the end of the
// segment swap: whoever finds the claim stops) and a rescuer goroutine
// switches Run's goroutine back out of the driver's coroutine — a
// coroutine switch may be made from any goroutine. Run then returns a
// HotLoopError with the holder's stack, taken with runtime.Stack over all
// goroutines (a coroutine is a goroutine there, with its own stack; the
// holder is the simulated goroutine not suspended in awaitBaton). The
// stuck goroutine is left running, as a stuck real goroutine would be; if
// it ever reaches a scheduling point or exits, it blocks for good, and so
// do the driver under it and the rescuer, touching the run no more. A
// segment so costs two coroutine switches and a few uncontended locks; no
// goroutine, timer, channel or wake-up of another thread (watchdog.go).
// With the watchdog off (HotLoop < 0) Run's goroutine drives the
// coroutines itself. Either way at most one goroutine touches the
// scheduler at a time, and the race detector sees each switch as a
// synchronisation (iter.Pull annotates it), so -race and GOMAXPROCS change
// nothing.
//
// Panics are recovered inside the coroutine, by the simulated goroutine's
// last deferred call, so its stack is the one reported and nothing reaches
// the driver (iter.Pull would re-panic it there). runtime.Goexit in a
// simulated goroutine is an exit, as for a goroutine; since iter.Pull would
// pass it on to the driver, the coroutine stays suspended mid-Goexit and
// Close lets it finish on a goroutine of its own. Close resumes every
// other unfinished goroutine with the unwind panic, so nothing of the run
// is left behind: their coroutines become idle carriers, which hold
// nothing of it and are ended after a garbage collection that finds them
// unused since the one before. Code under simulation must not block on real channels or locks
// another simulated goroutine would release: it never could (only the
// holder runs), and the watchdog reports it as a hot loop either way.
//
// # Cost
//
// A scheduling decision that hands the baton to another goroutine costs
// one coroutine switch or more (one per link of the chain it yields down)
// plus the decision itself: counting the step, the step bound, the
// strategy's pick (one draw from the Source). A decision that keeps the
// current goroutine costs a few nanoseconds. The primitive that made the
// decision then records it in the trace: 16 bytes appended to fixed
// 1,024-record chunks, so a record never copies the trace and leaves
// nothing for the collector but the chunks themselves. With the HotLoop
// watchdog on, each handoff is also published to it with one atomic swap
// (on amd64 the same locked instruction a store is; skipped when the
// watchdog is off). In BenchmarkDecision's ping-pong each handoff is one
// switch, half a round trip: 394 instructions per Yield against the bare
// round trip's 392 (callgrind, GOGC=off, 120,000 ops less 20,000), where a
// round trip through the driver for every handoff cost 549. In the
// scenarios some handoffs yield down more than one link; early-kill makes
// about 92 switches a seed where it made 162 (calls of the runtime's
// coroswitch_m under callgrind, per seed of BenchmarkScenario). Measured
// as CPU time per op with the round trip through the driver (medians of 8
// interleaved runs on the shared 2-core machine at a load of 16-20;
// docs/performance.md, "Issue 19, session 8: carriers", has the tables):
// a Yield that hands the baton cost 112 ns at GOMAXPROCS=1 and 110 ns at
// 2 when the runs recycle their trace chunks, as a sweep does (Recycle),
// 1.42 and 1.37 times a bare round trip of 79 ns.
// Without recycling, each record's 16 bytes are new memory for the
// collector, and a Yield cost 124-142 ns in the same runs (this code and
// the code before alike). What is left above the round trip is mostly the
// draw, the record, and the frames between the primitive and the switch
// (a return after a switch between coroutine stacks is mispredicted,
// frame by frame). A scenario seed is a few hundred to a few thousand
// scheduling points and a millisecond of CPU or more, so the baton is a
// few percent of a seed.
package sim
