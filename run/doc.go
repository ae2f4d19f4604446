// Package run is the composition root: the one place that wires a target
// to the oracles. RunSeed, ReplaySeed and RecordSeed run one seed of a
// family on the simulated kubelet (package world) with every oracle that
// applies to it — linearizability, safety, liveness and kill latency per
// kubelet process, the kubelet-level checks when the world has a kubelet
// around its pod workers — and the coverage marker; CheckRapid draws the
// whole run from rapid. A Case (case.go) is a run as data, the unit that
// shrinking and regression scripts work on.
//
// A run is a pure function of (scenario, seed, options): the same seed
// gives the same trace bytes on any machine, at any GOMAXPROCS, with -race
// or without.
package run
