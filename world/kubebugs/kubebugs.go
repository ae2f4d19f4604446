// Package kubebugs holds the switches of the kubelet-level bugs a kubelet
// world can re-introduce (docs/bugs.md's "K" entries and virtual-kubelet's
// V2) and the kubelet world's catalogue data (catalogue.go): plain data,
// read by package world where each bug acts.
package kubebugs

import "strings"

// Bugs re-introduces the kubelet-level bugs of docs/bugs.md ("K"
// entries): each field, off by default, brings one back, and names the
// invariant that must catch it. The correct world has every field false.
type Bugs struct {
	// B4ShutdownKeepsPhase: the node shutdown manager's status function sets
	// only the reason and message, not Phase=Failed (#104531). Caught by K5.
	B4ShutdownKeepsPhase bool
	// B5AdmitCountsRejected: admission's active set leaves out only pods
	// whose terminal phase came back from the API, so a pod rejected
	// locally counts until the API echoes its Failed status (#104560,
	// #104817). Caught by K1.
	B5AdmitCountsRejected bool
	// B10StatusIgnoresRunning: the status manager writes a terminal phase
	// without asking CouldHaveRunningContainers (#106884, #108366). Caught
	// by K2.
	B10StatusIgnoresRunning bool
	// B13NoTerminalDeleteFilter: housekeeping does not kill terminal,
	// deleted pods the pod workers do not know (filterTerminalPodsToDelete,
	// #118472/#118497), so a pod rejected at admission and then deleted is
	// never finished and never deleted from the API. Caught by L7 (API).
	B13NoTerminalDeleteFilter bool
	// B17RestartForgetsShutdown: a kubelet restarted while logind shuts
	// the node down does not learn of the shutdown (logind announced it to
	// the old process only; the new one never asks), so it admits and
	// starts pods first added during it (#122674, open upstream). Caught
	// by K5.
	B17RestartForgetsShutdown bool
	// V2ReaperKeyedByName: the grace reaper (package world's reaper.go, the
	// API-server side's delayed forced delete) keys its queue by the pod's
	// name only,
	// deletes without a UID precondition, and does not forget the key when
	// the object leaves the API: at the deadline it deletes whatever pod
	// object holds the name then, such as a pod re-created under the same
	// name within its predecessor's grace (virtual-kubelet #867, #907;
	// fixed by #908). Caught by K6.
	V2ReaperKeyedByName bool
}

// String names the bugs that are on, "none" if none is.
func (b Bugs) String() string {
	var on []string
	for _, f := range []struct {
		name string
		on   bool
	}{{"B4ShutdownKeepsPhase", b.B4ShutdownKeepsPhase}, {"B5AdmitCountsRejected", b.B5AdmitCountsRejected},
		{"B10StatusIgnoresRunning", b.B10StatusIgnoresRunning}, {"B13NoTerminalDeleteFilter", b.B13NoTerminalDeleteFilter},
		{"B17RestartForgetsShutdown", b.B17RestartForgetsShutdown},
		{"V2ReaperKeyedByName", b.V2ReaperKeyedByName}} {
		if f.on {
			on = append(on, f.name)
		}
	}
	if len(on) == 0 {
		return "none"
	}
	return strings.Join(on, ",")
}
