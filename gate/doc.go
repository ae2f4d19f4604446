// Package gate is the regression gate: every catalogued bug (run.Mutants)
// is re-introduced and must be caught from every start seed, within its
// budget, under the random and PCT strategies, while the correct code
// passes every family. It reports seeds-to-detection, what fired, and the
// length of the shrunk story.
package gate
