package guided

import (
	"testing"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/run"
)

// session25FalseAlarms are the three guided inputs that failed the correct
// code while session 25 grew its corpora (docs/guided-log.md). The first
// (swarm-restart, K3) ran a plan's runtime-only kill of a pod still in
// config, which housekeeping never sends: the world now drops it
// (regress/testdata/k3-runtime-kill-of-a-pod-in-config.txt). The other two
// (swarm, P5) drew a Create and a Vanish of one pod at one instant on two
// clients, which the schedule ran Vanish first: a new API object under a
// vanished UID; the generators no longer draw that pair
// (regress/testdata/p5-create-and-vanish-at-one-instant.txt).
var session25FalseAlarms = []struct{ family, input string }{
	{"swarm-restart", "g1:TJAhTwNBEIXfm7d3C5RSAcl5HIafww8gJFg8mtSSVJAqDAKBIIHkbAUCSxMkCW4xCBSWzOw24XLZnTc3-713C-ASBAgj_bUQXsskiSIkm3kHWzEokERHGDA1YgqyIwR0ckw2IpPcBSmZjzpxIgMmFNwHScC2AfgNlmSd5ERP48vPDq1peisYrBo0RNaqQTzPamgL6SNmhpSYfCcqIdCtsgq2CognTuLqFJC8VlwL4EaboxtD1DjNM1CcH0YiY9M1ePPGv19pvViP33XflVzyQuOw7Jc8ue5LHofbvOZHetXXvn9c772lle88Kvng_Ma-7eypL_nBVlbyXb_gnCVfPOqlH4eSP_UXAAD__w"},
	{"swarm", "g1:TI-xDUIxDETfnfP5fBZjN1okqNkBIVHT0DAMGyA7iYSLyDmf38nAUZZA5GMcrl8KsoKQRBg3MD7IOQW0BbbMqizgpWXXmsJLKKTO_H663RpFBaZou2JQc8gtk53MHKpPugF0vc_1AU7LaMj13v3rlWXqICWZcWfdJ3tipm2QU92f1ndsz-Xmh85xWX8BAAD__w"},
	{"swarm", "g1:TI_BrQIxDETfjLO7_1MPPVAIzSAaoBDogAsXWqAEJDpAdhIJHyJnPH4jAwdZApGPcbh-KcgKQhJh3MB4J-cU0H9gy2zKAu5a1tYUXkIhdebn2e3WKCowRdsVg5pDbpnsZOZQfdINoMttrg9wWkZDrvfuV68sUwcpyYw76z7ZEzNtg5zq33l7xHF_aq9467p-AwAA__8"},
}

// TestSession25FalseAlarmsPass: each input passes, with the workers'
// internal checks and observable-only (before the fixes: K3, P5, P5).
func TestSession25FalseAlarmsPass(t *testing.T) {
	for _, c := range session25FalseAlarms {
		f, ok := plan.FamilyNamed(c.family)
		if !ok {
			t.Fatalf("no family %s", c.family)
		}
		in, err := ParseToken(c.input)
		if err != nil {
			t.Fatal(err)
		}
		for _, opts := range []run.CheckOptions{{}, {ObservableOnly: true}} {
			if r := Replay(f, in, opts); r.Failed() {
				t.Errorf("%s %.20s… (%+v): the correct code fails: %v", c.family, c.input, opts, r.Result)
			}
		}
	}
}
