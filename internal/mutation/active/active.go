// Package active is what a schema build of internal/mutation asks which
// mutant is on: the number in the environment variable PODSIM_MUTANT, read
// once when the program starts (none when unset or not a number). Only the
// schema files the mutation runner writes import it; no package of the
// module does.
package active

import (
	"os"
	"strconv"
)

// Env is the environment variable holding the mutant's number.
const Env = "PODSIM_MUTANT"

// on is read once, before main: nothing changes it afterwards.
var on = parse(os.Getenv(Env))

func parse(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return -1
	}
	return n
}

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
