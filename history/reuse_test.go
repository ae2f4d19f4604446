package history

import "testing"

// TestReuseTakesEachRecordOnce: Reuse hands out free's records, last
// first, each once, and then new ones; free no longer holds what it gave.
func TestReuseTakesEachRecordOnce(t *testing.T) {
	a, b := new(int), new(int)
	free := []*int{a, b}
	if got := Reuse(&free); got != b || len(free) != 1 {
		t.Fatalf("first: %p (free %d), want b %p", got, len(free), b)
	}
	if got := Reuse(&free); got != a || len(free) != 0 {
		t.Fatalf("second: %p (free %d), want a %p", got, len(free), a)
	}
	if got := Reuse(&free); got == a || got == b || got == nil {
		t.Fatalf("empty free: %p, want a new record", got)
	}
	if all := free[:2]; all[0] != nil || all[1] != nil {
		t.Errorf("free's array still holds %v", all)
	}
}
