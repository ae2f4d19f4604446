package realkubelet

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/podsim/podsim/plan"
)

func TestZZShas(t *testing.T) {
	out, _ := os.Create(os.Getenv("ZZ_OUT"))
	defer out.Close()
	for _, f := range plan.KubeletFamilies() {
		if f.Name == "shutdown-cancel" {
			continue
		}
		for _, hold := range []bool{false, true} {
			for seed := uint64(1); seed <= 20; seed++ {
				r := Bubble(t, func() Result { return RunSeedWith(f, seed, RunOptions{HoldWakes: hold}) })
				var keys []string
				for _, fd := range r.Findings {
					keys = append(keys, fd.String())
				}
				fmt.Fprintf(out, "%s %v %d %s %s\n", f.Name, hold, seed, r.TraceSHA, strings.Join(keys, " | "))
			}
		}
	}
}
