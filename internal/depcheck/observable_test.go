package depcheck

import (
	"slices"
	"testing"
)

// TestOraclesReadOnlyWhatIsObservable: the oracles read the target's
// records only where PrivateReads allows.
func TestOraclesReadOnlyWhatIsObservable(t *testing.T) {
	vs, err := CheckObservable("../..", PrivateReads())
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		t.Error(v)
	}
}

// TestCheckObservableCatchesPrivateReads plants each kind of private read
// in a small tree and expects exactly those reported.
func TestCheckObservableCatchesPrivateReads(t *testing.T) {
	root := writeTree(t, map[string]string{
		"oracle/safety/bad.go":     `package safety; func f(v any) { _ = v.Workers().Answers("a") }`,
		"oracle/kubelet/bad.go":    `package kubelet; func f(v any) { _ = v.Final().Pods }`,
		"oracle/latency/bad.go":    `package latency; func f(a any) bool { return a.Known }`,
		"oracle/coverage/bad.go":   `package coverage; func f(w any) { w.AnswersLocked("a") }`,
		"oracle/liveness/judge.go": `package liveness; func f(v any) { _ = v.Final() }`,
		"oracle/liveness/flags.go": `package liveness; func f(r any) bool { return r.HasPendingUpdate || r.Working }`,
		"oracle/safety/states.go":  `package safety; func f(w any) { _ = w.PW.PodStates() }`,
		"oracle/liveness/ok.go":    `package liveness; type t struct{ Final int }; func f(x t) int { return x.Final }`,
		"oracle/safety/ok_test.go": `package safety; func g(v any) { _ = v.Final() }`,
		"oracle/vk/ok.go":          `package vk; func f(ev any) { _ = ev.Probe.Answers("a") }`,
		"world/not_an_oracle.go":   `package world; func f(v any) { _ = v.Final() }`,
	})
	got, err := CheckObservable(root, PrivateReads())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"oracle/coverage/bad.go reads .AnswersLocked: a target's accessor under its lock",
		"oracle/kubelet/bad.go reads .Final: View.Final: the pod workers' records after the settle phase (working, in flight, pending update)",
		"oracle/latency/bad.go reads .Known: history.Answers.Known: whether the UID has a record, which no query answers",
		"oracle/liveness/flags.go reads .HasPendingUpdate: a record's pending update, which no query answers",
		"oracle/liveness/flags.go reads .Working: a record's working flag, which no query answers",
		"oracle/liveness/judge.go reads .Final: View.Final: the pod workers' records after the settle phase (working, in flight, pending update)",
		"oracle/safety/bad.go reads .Workers: the pod workers' records read under the lock; the answers are on LockReleasing events",
		"oracle/safety/states.go reads .PodStates: the pod workers' record snapshots (workers.PodStates)",
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("got\n%q\nwant\n%q", got, want)
	}
}
