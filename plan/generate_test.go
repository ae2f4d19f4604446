package plan

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"k8s.io/apimachinery/pkg/types"
)

// reusedAPIUID returns the first Create in p that may make a new API pod
// object under the UID of a non-static pod deleted, removed or vanished
// before it ran (-1 if none), written apart from NewObjectReusesUID so that
// a generator bypassing it is caught: a Create C2 such that a Delete,
// Remove or Vanish G of its UID may run before it, and another Create C1
// before G. A client runs its actions in plan order, each no earlier than
// its time and late by every KillNow before it (up to max(10 s, 1.5 ×
// grace) each); an action of another client may run before one whose
// latest time is not before its own time.
func reusedAPIUID(p Plan) int {
	if p.Node == nil || !p.Node.APIServer {
		return -1
	}
	latest := make([]time.Duration, len(p.Actions)) // the latest each action may run
	free := map[int]time.Duration{}                 // each client's latest time, so far
	for i, a := range p.Actions {
		latest[i] = max(a.At, free[a.Client])
		free[a.Client] = latest[i]
		if a.Kind == KillNow {
			grace := a.SpecGrace
			if a.Grace >= 0 {
				grace = a.Grace
			}
			free[a.Client] += time.Duration(max(10, grace*3/2)) * time.Second
		}
	}
	before := func(x, y int) bool { // x may run before y
		a, b := p.Actions[x], p.Actions[y]
		return a.Client == b.Client && x < y || a.Client != b.Client && a.At <= latest[y]
	}
	is := func(i int, kinds ...ActionKind) bool {
		return !p.Actions[i].Static && slices.Contains(kinds, p.Actions[i].Kind)
	}
	for c2, a := range p.Actions {
		for g := range p.Actions {
			for c1 := range p.Actions {
				if c1 != c2 && is(c2, Create) && is(c1, Create) && is(g, Delete, Remove, Vanish) &&
					p.Actions[g].UID == a.UID && p.Actions[c1].UID == a.UID && before(c1, g) && before(g, c2) {
					return c2
				}
			}
		}
	}
	return -1
}

// TestNoFamilyReusesAnAPIUID: no family draws a new API pod object under
// a UID whose earlier object was deleted or removed (an API server never
// reuses a UID; the guided swarm's L7 on correct code came from such a
// plan, docs/guided.md).
func TestNoFamilyReusesAnAPIUID(t *testing.T) {
	for _, f := range Families() {
		for seed := range uint64(1500) {
			p := f.Generate(SeedStreams(seed).Plan)
			if i := reusedAPIUID(p); i >= 0 {
				t.Fatalf("%s seed %d: action %d re-creates API pod %s after its object was deleted or removed",
					f.Name, seed, i, p.Actions[i].UID)
			}
		}
	}
}

// TestReusedAPIUIDIsCaught is the check's negative test: the guided
// finding's plan, and its static twin, which may keep its UID.
func TestReusedAPIUIDIsCaught(t *testing.T) {
	api := &Node{CPU: 4, APIServer: true, EchoLag: time.Second}
	b := Action{UID: "b", Name: "web", CPU: 3, Mem: 1, Priority: 1000}
	at := func(kind ActionKind, d time.Duration, static bool) Action {
		a := b
		a.Kind, a.At, a.Static = kind, d, static
		return a
	}
	finding := Plan{Node: api, Actions: []Action{at(Create, 0, false), at(Delete, 4500*time.Millisecond, false),
		at(Create, 8500*time.Millisecond, false), at(Delete, 8500*time.Millisecond, false)}}
	if got := reusedAPIUID(finding); got != 2 {
		t.Fatalf("the finding's plan: reusedAPIUID = %d, want 2", got)
	}
	if got := droppedFor(finding); !slices.Equal(got, []int{2}) {
		t.Fatalf("NewObjectReusesUID drops actions %v, want [2]", got)
	}
	static := Plan{Node: api, Actions: []Action{at(Create, 0, true), at(Remove, time.Second, true), at(Create, 2*time.Second, true)}}
	noAPI := Plan{Actions: finding.Actions}
	for name, p := range map[string]Plan{"static": static, "no API server": noAPI} {
		if got := reusedAPIUID(p); got != -1 {
			t.Errorf("%s: reusedAPIUID = %d, want -1 (may reuse a UID)", name, got)
		}
		if got := droppedFor(p); len(got) > 0 {
			t.Errorf("%s: NewObjectReusesUID drops actions %v", name, got)
		}
	}
}

// droppedFor is the indexes of p's actions NewObjectReusesUID drops, each
// judged on the actions kept before it.
func droppedFor(p Plan) []int {
	r := NewUIDReuse()
	var dropped []int
	for i, a := range p.Actions {
		if NewObjectReusesUID(p.Node, a, r) {
			dropped = append(dropped, i)
		}
	}
	return dropped
}

// TestReuseAcrossClientsIsCaught: a Create and a Delete, Remove or Vanish
// of its UID on two clients run in the schedule's order when they share an
// instant, and a client in a KillPodNow runs its next actions late. The
// first plan is the guided swarm's P5 on correct code (session 25,
// regress/testdata/p5-create-and-vanish-at-one-instant.txt): the Vanish ran
// first, and the Create made a new object under the vanished UID. Both the
// check and the generator's rule must see it; a Vanish after the latest
// the Create may run is kept.
func TestReuseAcrossClientsIsCaught(t *testing.T) {
	api := &Node{Mem: 6, APIServer: true}
	act := func(kind ActionKind, d time.Duration, client int, uid types.UID, grace int64) Action {
		return Action{Kind: kind, At: d, Client: client, UID: uid, Name: "web", SpecGrace: 30, Grace: grace, CPU: 2, Mem: 1}
	}
	s := time.Second
	cases := []struct {
		name    string
		actions []Action
		reused  int   // reusedAPIUID's answer
		dropped []int // NewObjectReusesUID's
	}{
		{"one instant", []Action{act(Create, 0, 0, "a", -1), act(Shutdown, s, 0, "", -1), act(Create, 2*s, 0, "a", -1),
			act(Vanish, 2*s, 1, "a", -1)}, 2, []int{3}},
		{"late behind a KillPodNow", []Action{act(Create, 0, 0, "a", -1), act(KillNow, s, 0, "b", 10),
			act(Create, 2*s, 0, "a", -1), act(Remove, 16*s, 1, "a", -1)}, 2, []int{3}},
		{"after the latest", []Action{act(Create, 0, 0, "a", -1), act(KillNow, s, 0, "b", 10),
			act(Create, 2*s, 0, "a", -1), act(Delete, 16*s+time.Millisecond, 1, "a", 0)}, -1, nil},
		{"same client, plan order", []Action{act(Create, 0, 0, "a", -1), act(Create, 2*s, 0, "a", -1),
			act(Vanish, 2*s, 0, "a", -1)}, -1, nil},
		{"no object to end", []Action{act(Create, 0, 0, "a", -1), act(Delete, 0, 1, "a", 2)}, -1, nil},
	}
	for _, c := range cases {
		p := Plan{Node: api, Clients: 2, Actions: c.actions}
		if got := reusedAPIUID(p); got != c.reused {
			t.Errorf("%s: reusedAPIUID = %d, want %d", c.name, got, c.reused)
		}
		if got := droppedFor(p); !slices.Equal(got, c.dropped) {
			t.Errorf("%s: NewObjectReusesUID drops %v, want %v", c.name, got, c.dropped)
		}
	}
}

// TestLetterUIDs: letterUID and the tables of PodName and FullName give the strings the
// generators built before them (string(rune('a'+i)), "pod-"+uid), past z
// too. Fails when the table is off by one.
func TestLetterUIDs(t *testing.T) {
	for i := range 40 {
		uid := letterUID(i)
		if want := types.UID(string(rune('a' + i))); uid != want {
			t.Fatalf("letterUID(%d) = %q, want %q", i, uid, want)
		}
		if got, want := (Action{UID: uid}).PodName(), "pod-"+string(uid); got != want {
			t.Fatalf("PodName of %q = %q, want %q", uid, got, want)
		}
		for _, name := range []string{"", "pod-" + string(uid), "web", "pod-b"} {
			a := Action{UID: uid, Name: name}
			if got, want := a.FullName(), a.PodName()+"_default"; got != want {
				t.Fatalf("FullName of %q named %q = %q, want %q", uid, name, got, want)
			}
		}
	}
	if got := (Action{UID: "a", Name: "web"}).PodName(); got != "web" {
		t.Fatalf("PodName with a name = %q, want web", got)
	}
}

// TestSameUID: a one-letter UID comes back in the generators' memory
// (the same pointer whatever memory it came in), any other as it is; the
// generators name their pods in that memory.
func TestSameUID(t *testing.T) {
	built := types.UID(strings.Repeat("b", 1)) // equal bytes, other memory
	if got := SameUID(built); got != "b" || unsafe.StringData(string(got)) != unsafe.StringData(string(letterUID(1))) {
		t.Errorf("SameUID(%q): %q, not letterUID(1)'s memory", built, got)
	}
	if other := types.UID(strings.Repeat("ab", 1)); unsafe.StringData(string(SameUID(other))) != unsafe.StringData(string(other)) {
		t.Errorf("SameUID(%q): not uid itself", other)
	}
	p := GenerateGraceShortening(SeedStreams(1).Plan)
	for _, a := range p.Actions {
		if unsafe.StringData(string(a.UID)) != unsafe.StringData(string(SameUID(a.UID))) {
			t.Errorf("%s: action %v's UID in memory of its own", p.Family, a.Kind)
		}
	}
}

// TestLaneStreamsDrawSeedStreamsPlans: plans drawn one after another from
// one LaneStreams, reseeded for each seed, are the plans of SeedStreams,
// for every family, while each newPlanner family builds its plan in the
// last one's array (a kept array handed out without being emptied, or one
// not reseeded, fails the comparison).
func TestLaneStreamsDrawSeedStreamsPlans(t *testing.T) {
	for _, f := range Families() {
		st := LaneStreams(0)
		var last *Action
		reused := 0
		for seed := range uint64(20) {
			ReseedStreams(st, seed)
			got, want := f.Generate(st.Plan), f.Generate(SeedStreams(seed).Plan)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s seed %d: from LaneStreams %v, want %v", f.Name, seed, got, want)
			}
			if len(got.Actions) > 0 && &got.Actions[0] == last {
				reused++
			}
			if len(got.Actions) > 0 {
				last = &got.Actions[0]
			}
		}
		if f.Name == "early-kill" && reused < 15 {
			t.Errorf("early-kill: %d of 20 plans in the last one's array, want most", reused)
		}
	}
}
