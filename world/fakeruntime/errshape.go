package fakeruntime

import (
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/types"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"

	"github.com/podsim/podsim/model/ops"
	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/workers"
)

// ErrNetworkNotReady is the injected failure of a pod whose network is not
// ready yet: its message carries the kubelet's NetworkNotReadyErrorMsg
// ("network is not ready"), which is all the pod workers look for.
var ErrNetworkNotReady = errors.New("network is not ready: container runtime network not ready: NetworkReady=false")

// backoffOffsets are the expiries a drawn BackoffError ends at, from the
// moment the call fails: past, now, within the resync interval (1 ms, the
// shortest jitterable wait, up to the interval itself) and beyond it.
var backoffOffsets = []time.Duration{-5 * time.Second, 0, time.Millisecond, 3 * time.Second, 25 * time.Second,
	resyncInterval, resyncInterval + 40*time.Second}

// resyncInterval is the pod workers' resync interval (world.ResyncInterval).
const resyncInterval = workers.DefaultResyncInterval

// Packings of a drawn error (Faults.ErrorShapes), and the coverage mark
// each sets when it holds an error the requeue rule tells apart.
const (
	packPlain     = iota // the leaf itself
	packWrapped          // fmt.Errorf %w, once or twice
	packJoined           // errors.Join of 1 to 3 leaves
	packAggregate        // a workers.Aggregate of 2 or 3 leaves
	packKube             // an apimachinery aggregate (Errors() only, no Unwrap) of 2 or 3 leaves
	packNested           // a %w wrapper around a workers.Aggregate of 2 or 3 leaves
	nPackings
)

var packingMarks = [nPackings]string{packWrapped: plan.MarkErrWrapped, packJoined: plan.MarkErrJoined,
	packAggregate: plan.MarkErrAggregate, packKube: plan.MarkErrKubeAggregate, packNested: plan.MarkErrWrapped}

// shapedError is a failed call's error and what the world knows of its
// shape: its ops.ErrShape, recorded with the call's end, and the
// coverage marks it reaches.
type shapedError struct {
	shape ops.ErrShape
	marks []string
}

// failure is the error of a call that fails by the plan's ErrorRate: the
// plain ErrTransient, or with Faults.ErrorShapes one drawn from the fault
// stream, its shape kept for the call's end (TakeErrShape). Every choice 0
// gives the plain ErrTransient (what a replayed or shrunk choice list
// answers past its end).
func (r *Runtime) failure(uid types.UID) error {
	if !r.Faults.ErrorShapes {
		return ErrTransient
	}
	packing := r.Draw.Intn(nPackings)
	n := 1
	switch packing {
	case packJoined:
		n = 1 + r.Draw.Intn(3)
	case packAggregate, packKube, packNested:
		n = 2 + r.Draw.Intn(2)
	}
	leaves, drawn := make([]error, n), shapedError{}
	backoffs := map[time.Duration]bool{}
	for i := range leaves {
		switch r.Draw.Intn(4) {
		case 0:
			leaves[i] = ErrTransient
		case 1:
			leaves[i], drawn.shape.NetworkNotReady = ErrNetworkNotReady, true
		default:
			offset := backoffOffsets[r.Draw.Intn(len(backoffOffsets))]
			leaves[i] = &workers.BackoffError{Expiry: r.S.Now().Add(offset), Message: "back-off pulling image"}
			if at := r.S.Elapsed() + offset; !drawn.shape.Backoff || at < drawn.shape.BackoffExpiry {
				drawn.shape.Backoff, drawn.shape.BackoffExpiry = true, at
			}
			backoffs[offset] = true
		}
	}
	err := pack(packing, leaves, r.Draw.Intn(2) == 1)
	drawn.marks = shapeMarks(drawn.shape, r.S.Elapsed(), packing, len(backoffs))
	if r.errShapes == nil {
		r.errShapes = map[types.UID]shapedError{}
	}
	r.errShapes[uid] = drawn
	return err
}

// pack builds the error of packing from its leaves; twice wraps a
// packWrapped leaf twice.
func pack(packing int, leaves []error, twice bool) error {
	switch packing {
	case packWrapped:
		err := fmt.Errorf("sync pod: %w", leaves[0])
		if twice {
			err = fmt.Errorf("kubelet: %w", err)
		}
		return err
	case packJoined:
		return errors.Join(leaves...)
	case packAggregate:
		return workers.Aggregate(leaves)
	case packKube:
		return utilerrors.NewAggregate(leaves)
	case packNested:
		return fmt.Errorf("sync pod: %w", workers.Aggregate(leaves))
	}
	return leaves[0]
}

// shapeMarks are the coverage marks of a drawn error's shape at now:
// which branch of the requeue rule it takes, how it is packed (when it
// holds something the rule tells apart) and whether several BackoffErrors
// of different expiries compete.
func shapeMarks(s ops.ErrShape, now time.Duration, packing, distinctBackoffs int) []string {
	var marks []string
	switch {
	case s.NetworkNotReady:
		marks = append(marks, plan.MarkErrNetworkNotReady)
	case s.Backoff && s.BackoffExpiry <= now:
		marks = append(marks, plan.MarkErrBackoffExpired)
	case s.Backoff && s.BackoffExpiry-now <= resyncInterval:
		marks = append(marks, plan.MarkErrBackoffPending)
	case s.Backoff:
		marks = append(marks, plan.MarkErrBackoffClamped)
	}
	if (s.NetworkNotReady || s.Backoff) && packingMarks[packing] != "" {
		marks = append(marks, packingMarks[packing])
	}
	if distinctBackoffs > 1 && !s.NetworkNotReady {
		marks = append(marks, plan.MarkErrEarliestOfMany)
	}
	return marks
}

// TakeErrShape returns, and forgets, what the world knows of the error
// uid's call is returning: its shape and coverage marks (zero: not a
// drawn shape).
func (r *Runtime) TakeErrShape(uid types.UID) (ops.ErrShape, []string) {
	s := r.errShapes[uid]
	delete(r.errShapes, uid)
	return s.shape, s.marks
}
