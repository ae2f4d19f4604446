package active

// keys maps a mutant's key (mutation.Mutant.Key) to its number in this
// build, so that PODSIM_MUTANT may name a mutant by key. The mutation
// runner's overlay replaces this file in a schema build with the build's
// table (mutate's keysFile); any other build has none, and a key then
// names nothing (Problem says so).
var keys = map[string]int{}
