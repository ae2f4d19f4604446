package guided

import (
	"slices"
	"testing"

	"github.com/podsim/podsim/plan"
	"github.com/podsim/podsim/run"
)

// vkLostProviderDelete is a guided vk-swarm input that failed the correct
// code (VK3): the provider deleted pod a (web) by itself, the controller
// removed a's API object but failed to delete a in the provider before two
// restarts; c was created as web, and the provider deleted c too. The new
// controller heard c's deletion, then a status of a (the provider still
// ran it, deleting), which replaced c's last status in the tracking entry
// of the name: c's deletion was never propagated (upstream VJ's path,
// docs/upstream-findings.md). Shrunk: regress/testdata/vk-swarm-guided-provider-delete-lost.txt.
const vkLostProviderDelete = "g1:VE1LTsVADLM9P3U6BanMbTgIK24DnIYNF-ACIHbskBCrXgOlkz69ZhEnjmMDeBRJEFaNRBQUIMgIcQdICKBADC1pKsZgCmuMO0lv9kci2_e7-dumcceVi6Fk3e4YuCvgZ5uFY_IvjHVMdA6DG_ayKHiK42F4CvGFJ29Pu6ju-VHe0lZe-cO-laf0l17SV0KfQqjsa7trlYi5qOW11c_c0R6Wflvm_M38K4T5ZqnlmdN_AAAA__8"

// TestVKStatusOfAnOlderPodDoesNotHideTheCurrentPods: the run passes (before
// the fix in enqueueStatus it failed VK3), and it still reaches a
// provider-initiated deletion (the mark).
func TestVKStatusOfAnOlderPodDoesNotHideTheCurrentPods(t *testing.T) {
	f, ok := plan.FamilyNamed("vk-swarm")
	if !ok {
		t.Fatal("no vk-swarm family")
	}
	in, err := ParseToken(vkLostProviderDelete)
	if err != nil {
		t.Fatal(err)
	}
	r := Replay(f, in, run.CheckOptions{})
	if r.Failed() {
		t.Fatalf("the correct code fails: %v", r.Result)
	}
	if !slices.Contains(r.Marks, plan.MarkVKProviderDeleted) {
		t.Fatalf("marks %v: want %s", r.Marks, plan.MarkVKProviderDeleted)
	}
}
