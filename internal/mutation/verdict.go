package mutation

// Verdict is the focused sweep's one line of output for one mutant
// (internal/mutation/sweep writes it, internal/mutation/mutate reads it).
type Verdict struct {
	Killed   bool   `json:"killed"`
	Strategy string `json:"strategy,omitempty"`
	Family   string `json:"family,omitempty"`
	Seed     uint64 `json:"seed"`
	// SeedsPerFamily is, for a catch under the random walk, the seeds per
	// family the default sweep runs until it catches the mutant (Seed+1).
	SeedsPerFamily uint64 `json:"seeds_per_family,omitempty"`
	Reason         string `json:"reason,omitempty"`
	Runs           int    `json:"runs"` // seeds run, all families and strategies
	// Skipped counts the runs a -reach-in file showed cannot reach the
	// mutant's site, so not run (the same as the unmutated runs).
	Skipped int `json:"skipped,omitempty"`
	// Failures counts the failing runs of a sweep that went on past the
	// first (sweep -count); the first is the one Seed names.
	Failures int `json:"failures,omitempty"`
	// FailedAt lists, under -count, every failing run as "seed oracle/invariant"
	// (or "seed run" for a scheduler error), to tell a mutant's failures
	// from others.
	FailedAt []string `json:"failed_at,omitempty"`
	// Digest is the SHA-256 of every run's trace digest, in run order: two
	// builds that behave alike give the same digest.
	Digest string `json:"digest"`
	// Unreached lists, as family/mark, the declared coverage marks no seed
	// of the family reached (only when nothing was caught).
	Unreached []string `json:"unreached,omitempty"`
}
