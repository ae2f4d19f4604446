// Package history is the target-neutral record of a run: the totally
// ordered stream of Events around the pod workers, in the vocabulary of
// package model (client calls and returns, critical sections, callbacks,
// fires, the kubelet-level Notes), the Recorder that turns the stream into
// the History the linearizability check reads, the Violations oracles
// report, and the coverage Marker. Every target emits these events; every
// oracle reads them, and nothing here knows either.
package history
