// Package cputime reads the process's CPU time for the benchmarks of model
// and scenarios: their cpu-ns/op and seeds/cpu-s metrics count the CPU a
// check or a run used, which on a shared machine says more than wall time
// (porcupine also checks partitions in parallel). It is for benchmarks only;
// nothing it returns may reach a simulation's behaviour or output.
package cputime
