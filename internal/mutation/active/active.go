// Package active is what a schema build of internal/mutation asks which
// mutant is on: the environment variable PODSIM_MUTANT, a mutant's number or
// its key (keys.go), read once when the program starts. None is on when it
// is unset; when it names no mutant none is on and Problem says why. Only
// the schema files the mutation runner writes import it; no package of the
// module does.
package active

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Env is the environment variable holding the mutant's number or key.
const Env = "PODSIM_MUTANT"

// on and problem are read once, before main: nothing changes them
// afterwards.
var on, problem = parse(os.Getenv(Env))

// parse reads PODSIM_MUTANT: a number, a key of this build, or nothing.
func parse(s string) (int, string) {
	if s == "" {
		return -1, ""
	}
	if id, ok := keys[s]; ok {
		return id, ""
	}
	if strings.HasPrefix(s, "k") {
		return -1, fmt.Sprintf("%s=%s: no mutant of this build has that key", Env, s)
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return -1, fmt.Sprintf("%s=%q is neither a mutant number nor a key", Env, s)
	}
	return n, ""
}

// Problem is why PODSIM_MUTANT names no mutant ("" when it is unset or
// names one): a program that runs mutants should refuse to start on it,
// rather than run the unmutated code as if it were the mutant.
func Problem() string { return problem }

// On reports whether mutant id is the one switched on.
func On(id int) bool {
	if recording {
		note(id)
	}
	return id == on
}

type number interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr |
		~float32 | ~float64
}

type integer interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr
}

// Sub is x - y, or y - x when mutant id is on.
func Sub[T number](id int, x, y T) T {
	if On(id) {
		return y - x
	}
	return x - y
}

// Quo is x / y, or y / x when mutant id is on.
func Quo[T number](id int, x, y T) T {
	if On(id) {
		return y / x
	}
	return x / y
}

// Rem is x % y, or y % x when mutant id is on.
func Rem[T integer](id int, x, y T) T {
	if On(id) {
		return y % x
	}
	return x % y
}
