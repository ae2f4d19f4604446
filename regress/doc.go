// Package regress is the regression-script format: a shrunk run.Case
// written as a narrated datadriven script (testdata/*.txt, etcd raft's
// interaction-test style) whose expected output is the verdict, and the
// test that re-runs every committed script (-rewrite updates them).
package regress
