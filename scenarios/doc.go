// Package scenarios is podsim's composition root: the simulated kubelet
// world around the pod workers, the recorders and oracles that judge a run,
// and the generators that make runs from a seed or from rapid.
//
// A run is a pure function of (scenario, seed, options): the seed derives
// independent child streams (sim.Derive) for the plan ("plan"), the
// schedule ("schedule") and the faults ("faults"), so adding draws to one
// never shifts another. Under rapid, all three come from rapid's draws, so
// its shrinker minimises the scenario, the interleaving and the faults
// together.
package scenarios
