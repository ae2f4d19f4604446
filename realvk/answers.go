package realvk

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/virtual-kubelet/virtual-kubelet/errdefs"
	"k8s.io/apimachinery/pkg/types"
)

// The provider's error answers, for the state coverage alone
// (vkcoverage.Tracker.Answered): every PodLifecycleHandler call about a
// pod defers answered with its final error.

// answered hands a provider call's error answer about a pod to the run's
// state coverage (vkcoverage.Tracker.Answered: "delete-notfound",
// "create-invalid", "get-error", …), queued with the notes so that it
// keeps their order; it is no note, so no oracle and no trace sees it. A
// nil error is not recorded: what an answered call did shows through the
// notes. uid "" is the pod the API holds under key, else the provider's;
// a call about neither is not recorded.
func (p provider) answered(uid types.UID, key, op string, err error) {
	if err == nil {
		return
	}
	p.w.mu.Lock()
	defer p.w.mu.Unlock()
	if uid == "" {
		uid = p.w.uidOf(key)
	}
	if uid != "" {
		p.w.noted = append(p.w.noted, notedAt{answer: op + "-" + answerOf(err), uid: uid, at: time.Now()})
	}
}

// answerOf names an error the provider answers with.
func answerOf(err error) string {
	switch {
	case errdefs.IsNotFound(err):
		return "notfound"
	case errdefs.IsInvalidInput(err):
		return "invalid"
	case errors.Is(err, context.Canceled):
		return "dead"
	}
	return "error"
}

// uidOf is the UID of the pod the API holds under key, else of the
// provider's, else ""; mu held.
func (w *World) uidOf(key string) types.UID {
	if ns, name, ok := strings.Cut(key, "/"); ok {
		if pod := w.api.get(ns, name); pod != nil {
			return pod.UID
		}
	}
	if b := w.backend[key]; b != nil {
		return b.pod.UID
	}
	return ""
}
