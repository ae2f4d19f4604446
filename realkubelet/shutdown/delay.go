package shutdown

import (
	"cmp"
	"fmt"
	"sync"
	"time"
)

// logind's inhibit delay (Config.ShortDelay).
//
// logind lets an inhibitor delay a shutdown by at most its
// InhibitDelayMaxSec (systemd's default: 5 s). When the manager's groups
// ask for more, start writes an override (OverrideInhibitDelay: a drop-in
// logind.conf), asks logind to reload (ReloadLogindConf, asynchronous),
// and polls CurrentInhibitDelay with exponential backoff (checks at 0,
// 0.1, 0.3, 0.7 and 1.5 s) until the delay covers its groups; it fails if
// it never does. By default the fake's delay is a day, so none of that
// runs. With ShortDelay it starts at 5 s, and an override takes effect
// once logind reloads and, with "slow", a second later (seen at the fifth
// check).
//
// The rule (P7): when the manager starts watching logind, the delay in
// force covers its groups' total; otherwise a shutdown then would be cut
// short, the later groups killed by the power-off rather than their grace.

// shortDelay is logind's InhibitDelayMaxSec with ShortDelay: systemd's
// default.
const shortDelay = 5 * time.Second

// delayConf is logind's configuration as one manager sees it (shared by
// its connections: a restart keeps logind.conf).
type delayConf struct {
	mu       sync.Mutex
	inForce  time.Duration
	override time.Duration // written by OverrideInhibitDelay; 0 none
	// reloadedAt is when ReloadLogindConf came after the override (zero:
	// not yet); applyAfter is how long logind then takes.
	reloadedAt time.Time
	applyAfter time.Duration
	// requested is the groups' total; problems are the watches that began
	// with less in force.
	requested time.Duration
	problems  []string
}

// newDelayConf is the configuration for ShortDelay's mode ("" for none:
// a day, which no plan's groups exceed); inForce, if not 0, is the delay
// an earlier process's manager left in force (logind.conf and its drop-in
// outlive a kubelet restart: Config.DelayInForce).
func newDelayConf(mode string, requested, inForce time.Duration) *delayConf {
	c := &delayConf{inForce: 24 * time.Hour, requested: requested}
	if mode != "" {
		c.inForce = cmp.Or(inForce, shortDelay)
		switch mode {
		case "slow":
			c.applyAfter = time.Second
		case "never": // the driver's planted bug only: logind ignores the override
			c.applyAfter = 1000 * time.Hour
		}
	}
	return c
}

// current is the delay in force now: the override once it applied.
func (c *delayConf) current() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.override > 0 && !c.reloadedAt.IsZero() && !time.Now().Before(c.reloadedAt.Add(c.applyAfter)) {
		c.inForce, c.override, c.reloadedAt = c.override, 0, time.Time{}
	}
	return c.inForce
}

func (c *delayConf) write(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.override, c.reloadedAt = d, time.Time{}
}

func (c *delayConf) reload() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.override > 0 && c.reloadedAt.IsZero() {
		c.reloadedAt = time.Now()
	}
}

// watching judges the delay in force when the manager starts watching.
func (c *delayConf) watching() {
	d := c.current()
	c.mu.Lock()
	defer c.mu.Unlock()
	if d < c.requested {
		c.problems = append(c.problems, fmt.Sprintf("the node shutdown manager watches logind while its inhibit delay is %v, "+
			"less than the groups' %v: a shutdown now would be cut short", d, c.requested))
	}
}

func (c *delayConf) judged() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.problems...)
}
