package realvk

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/podsim/podsim/realvk/script"
)

// TestProviderAnswersInCoverage: the provider's error answers reach the
// run's state coverage as the pod's newest note (provider.answered), and
// nothing else: the VI script's GetPod answered with an injected error
// and then not-found shows as pget-error and pget-notfound tuples, while
// its trace and findings stay those of the script (TestRegressionScripts
// judges them; the sweeps of the unmutated module were compared byte for
// byte before and after the change).
func TestProviderAnswersInCoverage(t *testing.T) {
	text, err := os.ReadFile("testdata/VI-cleanup-trusts-getpod.script")
	if err != nil {
		t.Fatal(err)
	}
	moves, _, err := script.Parse(string(text))
	if err != nil {
		t.Fatal(err)
	}
	r := replay(t, moves)
	for _, answer := range []string{"|pget-error|", "|pget-notfound|"} {
		if !slices.ContainsFunc(r.Coverage.Tuples, func(tu string) bool { return strings.Contains(tu, answer) }) {
			t.Errorf("no tuple with %s in %v", answer, r.Coverage.Tuples)
		}
	}
	for _, tu := range r.Coverage.Tuples {
		if strings.Contains(tu, "|pdelete-") || strings.Contains(tu, "|pcreate-") {
			t.Errorf("%s: no create or delete of the script was answered with an error", tu)
		}
	}
	if again := replay(t, moves); !slices.Equal(again.Coverage.Tuples, r.Coverage.Tuples) || again.TraceSHA != r.TraceSHA {
		t.Errorf("a replay reached other tuples or another trace")
	}
}
