package realvk

import (
	"flag"
	"os"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/podsim/podsim/plan"
)

var (
	repFamily = flag.String("rep.family", "", "")
	repSeed   = flag.Uint64("rep.seed", 1, "")
	repN      = flag.Int("rep.n", 50, "")
)

func TestRepeatDebug(t *testing.T) {
	if *repFamily == "" {
		t.Skip()
	}
	var f plan.Family
	for _, g := range plan.VKFamilies() {
		if g.Name == *repFamily {
			f = g
		}
	}
	var first Result
	synctest.Test(t, func(t *testing.T) { first = RunSeed(f, *repSeed) })
	for i := range *repN {
		var r Result
		synctest.Test(t, func(t *testing.T) { r = RunSeed(f, *repSeed) })
		if r.TraceSHA != first.TraceSHA {
			os.WriteFile("/tmp/vkd/a.trace", []byte(strings.Join(first.Trace, "\n")+"\n"), 0o644)
			os.WriteFile("/tmp/vkd/b.trace", []byte(strings.Join(r.Trace, "\n")+"\n"), 0o644)
			t.Fatalf("run %d differs", i)
		}
	}
}
