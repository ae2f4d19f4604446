package fakeclock_test

import (
	"fmt"
	"time"

	"github.com/podsim/podsim/fakeclock"
)

// Timers fire in (deadline, arming order) order, each seeing Now() equal to
// its deadline; a callback may arm further timers, which fire in the same
// AdvanceTo if they are due by its target.
func Example() {
	c := fakeclock.New()
	at := func(name string) func() {
		return func() { fmt.Printf("%s at +%s\n", name, c.Since(fakeclock.Epoch())) }
	}
	c.AfterFunc(3*time.Second, at("C"))
	c.AfterFunc(time.Second, at("A"))
	c.AfterFunc(time.Second, func() {
		at("B")()
		c.AfterFunc(time.Second, at("B's child"))
	})
	stopped := c.AfterFunc(2*time.Second, at("never"))
	fmt.Println("stopped:", stopped.Stop())

	next, _ := c.Next()
	fmt.Println("next:", next.Format(time.TimeOnly))
	c.AdvanceTo(fakeclock.Epoch().Add(5 * time.Second))
	fmt.Println("now:", c.Now().Format(time.TimeOnly))
	// Output:
	// stopped: true
	// next: 00:00:01
	// A at +1s
	// B at +1s
	// B's child at +2s
	// C at +3s
	// now: 00:00:05
}
