// Package guided is the coverage-guided strategy: a deterministic, seeded
// corpus loop over a run's three choice streams (plan, schedule, faults).
// An Input is each stream as a list of recorded choices followed by either
// zeros or a seeded PCG tail; a run that reaches an abstract state or
// transition (package oracle/coverage; oracle/vkcoverage on a
// virtual-kubelet family) no earlier run of the family reached joins the
// corpus, and new inputs are mutations of corpus entries (flip, splice,
// insert, shorten, re-seed a stream, bias the faults) or, one time in
// four, fresh seeds. The loop's own choices come from its seed, and it
// runs a fixed-size batch of inputs at a time and folds the results in in
// input order, so the same seed and corpus give the same runs at any
// parallelism. The corpus and its coverage are saved to a directory so a
// CI job resumes where the last one stopped.
//
// The loop needs of a target only a Runner (runner.go): run one input,
// give back the input as drawn, the coverage reached and whether it
// failed. Loop is Walk over the simulated target; the nested modules
// realkubelet and realvk run Walk over the real kubelet's pod workers and
// the real virtual-kubelet controller, with Record's streams.
package guided
