package scenarios

// newLiveness returns the liveness oracle (SPEC §3.2 L1–L8), judged at
// Settled. Not written yet: it returns nil, so no run is checked this way.
func newLiveness(CheckOptions) Oracle { return nil }
