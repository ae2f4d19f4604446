// Package plan says what the clients of the code under test do, and when:
// a Plan is data (actions at virtual times, the node, the fault rates), so
// that it can be printed, replayed, shrunk and run against any target. The
// scenario families generate plans from a sim.Source; a seed derives the
// plan, schedule and fault streams independently (SeedStreams), so adding
// draws to one never shifts another. The coverage-mark names (marks.go)
// are the situations the families exist to reach; faultpoints.go is the
// frame the worlds' fault points share (which are on in a run).
package plan
