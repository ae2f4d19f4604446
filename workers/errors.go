package workers

import (
	"fmt"
	"strings"
	"time"
)

// BackoffError is a sync error that knows when a retry can succeed (the
// kubelet's image-pull and crash-loop backoffs): the retry is scheduled at
// Expiry instead of after the backoff period, never later than the resync
// interval (SPEC §1.8 step 5).
type BackoffError struct {
	// Expiry is when the backoff ends.
	Expiry time.Time
	// Message says what is backing off.
	Message string
}

func (e *BackoffError) Error() string {
	return fmt.Sprintf("%s: back-off until %s", e.Message, e.Expiry.UTC().Format(time.RFC3339Nano))
}

// Aggregate is several sync errors reported together (the shape of
// apimachinery's utilerrors.Aggregate). errors.Is and errors.As see every
// member through Unwrap.
type Aggregate []error

func (a Aggregate) Error() string {
	msgs := make([]string, 0, len(a))
	for _, err := range a {
		if err != nil {
			msgs = append(msgs, err.Error())
		}
	}
	if len(msgs) == 1 {
		return msgs[0]
	}
	return "[" + strings.Join(msgs, ", ") + "]"
}

// Unwrap returns the members.
func (a Aggregate) Unwrap() []error {
	return a
}

// Errors returns the members, as utilerrors.Aggregate does.
func (a Aggregate) Errors() []error {
	return a
}

// walkErrors calls visit for err and every error wrapped in it, depth first:
// single wrappers (Unwrap() error), joins and aggregates (Unwrap() []error,
// e.g. errors.Join and Aggregate) and apimachinery-style aggregates
// (Errors() []error).
func walkErrors(err error, visit func(error)) {
	if err == nil {
		return
	}
	visit(err)
	switch e := err.(type) {
	case interface{ Unwrap() []error }:
		for _, member := range e.Unwrap() {
			walkErrors(member, visit)
		}
	case interface{ Errors() []error }:
		for _, member := range e.Errors() {
			walkErrors(member, visit)
		}
	case interface{ Unwrap() error }:
		walkErrors(e.Unwrap(), visit)
	}
}

// earliestBackoffExpiry returns the earliest Expiry of the BackoffErrors in
// the error tree.
func earliestBackoffExpiry(err error) (time.Time, bool) {
	var earliest time.Time
	found := false
	walkErrors(err, func(e error) {
		backoff, ok := e.(*BackoffError)
		if ok && (!found || backoff.Expiry.Before(earliest)) {
			earliest, found = backoff.Expiry, true
		}
	})
	return earliest, found
}
