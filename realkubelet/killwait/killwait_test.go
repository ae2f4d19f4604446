package killwait

import (
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
)

// TestKillNowGaveUpEarlyIsR2: a killPodNow wait the driver started that
// timed out before max(10 s, 1.5 × grace) is reported as R2; one that
// waited its whole timeout, or longer (the poll comes after the return),
// is not; and a manager's wait, whose start is not recorded, is never
// judged. The mutants of upstream's killPodNow that drop the override or
// the pod's grace (its timeout falls to 10 s) are what this catches
// (docs/mutation.md, "The real kubelet's pod workers").
func TestKillNowGaveUpEarlyIsR2(t *testing.T) {
	fifteen, thirty := int64(15), int64(30)
	pod := &v1.Pod{Spec: v1.PodSpec{TerminationGracePeriodSeconds: &thirty}}
	if g := killGrace(pod, &fifteen); g != 15 {
		t.Fatalf("killGrace with an override = %d, want the override 15", g)
	}
	if g := killGrace(pod, nil); g != 30 {
		t.Fatalf("killGrace without an override = %d, want the pod's 30", g)
	}
	if g := killGrace(&v1.Pod{}, nil); g != 0 {
		t.Fatalf("killGrace with neither = %d, want 0", g)
	}
	cases := []struct {
		name           string
		began, timeout time.Duration
		now            time.Duration
		want           bool
	}{
		{"gave up at 10 s of a 22.5 s timeout", 0, 22*time.Second + 500*time.Millisecond, 10 * time.Second, true},
		{"gave up just before its timeout", time.Second, 15 * time.Second, 15*time.Second + 999*time.Millisecond, true},
		{"gave up exactly at its timeout", time.Second, 15 * time.Second, 16 * time.Second, false},
		{"seen a step after its timeout", 0, 10 * time.Second, 11 * time.Second, false},
		{"a manager's wait (no recorded start)", 0, 0, time.Second, false},
	}
	for _, c := range cases {
		msg := (&Wait{UID: "a", began: c.began, timeout: c.timeout}).gaveUpEarly(c.now)
		if got := strings.Contains(msg, "pod a: killPodNow gave up"); got != c.want {
			t.Errorf("%s: reported %v, want %v (message %q)", c.name, got, c.want, msg)
		}
	}
}
