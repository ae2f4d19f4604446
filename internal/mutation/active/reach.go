package active

// Reach recording (sweep -reach-out): while on, On notes every mutant whose
// site ran, so that a sweep of the unmutated schema build can write, per
// run, the mutants that run could change. A run that never reaches a
// mutant's site is the same run with that mutant on, so a later sweep of
// the mutant may skip it (sweep -reach-in). Off unless Record is called;
// the notes never change what a guard returns. Not safe for runs at once:
// a sweep runs one at a time, and a run's simulated goroutines take turns
// (sim's baton), each handing over before the next notes anything.
var (
	recording bool   // set by Record before any run, never cleared
	reached   []bool // by mutant number: its site ran since the last Record
)

// note marks mutant id's site as reached.
func note(id int) {
	if id < 0 {
		return
	}
	if id >= len(reached) {
		reached = append(reached, make([]bool, 2*id+64-len(reached))...)
	}
	reached[id] = true
}

// Record starts noting reached sites, from none. Call it between runs.
func Record() {
	recording = true
	clear(reached)
}

// Reached returns the numbers of the mutants whose site ran since the last
// Record, ascending.
func Reached() []int {
	var ids []int
	for i := range reached {
		if reached[i] {
			ids = append(ids, i)
		}
	}
	return ids
}

// Which returns the number of the mutant switched on, or -1 for none.
func Which() int { return on }
