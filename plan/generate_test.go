package plan

import (
	"reflect"
	"strings"
	"testing"
	"time"
	"unsafe"

	"k8s.io/apimachinery/pkg/types"
)

// reusedAPIUID returns the first Create in p that makes a new API pod
// object under the UID of a non-static pod deleted, removed or vanished
// before it (-1 if none), written apart from NewObjectReusesUID so that a
// generator bypassing it is caught.
func reusedAPIUID(p Plan) int {
	if p.Node == nil || !p.Node.APIServer {
		return -1
	}
	left := map[types.UID]bool{}
	for i, a := range p.Actions {
		if a.Static {
			continue
		}
		if a.Kind == Create && left[a.UID] {
			return i
		}
		if a.Kind == Delete || a.Kind == Remove || a.Kind == Vanish {
			left[a.UID] = true
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
	gone := map[types.UID]bool{}
	var dropped []int
	for i, a := range finding.Actions {
		if NewObjectReusesUID(finding.Node, a, gone) {
			dropped = append(dropped, i)
		}
	}
	if len(dropped) != 1 || dropped[0] != 2 {
		t.Fatalf("NewObjectReusesUID drops actions %v, want [2]", dropped)
	}
	static := Plan{Node: api, Actions: []Action{at(Create, 0, true), at(Remove, time.Second, true), at(Create, 2*time.Second, true)}}
	noAPI := Plan{Actions: finding.Actions}
	for name, p := range map[string]Plan{"static": static, "no API server": noAPI} {
		if got := reusedAPIUID(p); got != -1 {
			t.Errorf("%s: reusedAPIUID = %d, want -1 (may reuse a UID)", name, got)
		}
		gone := map[types.UID]bool{}
		for _, a := range p.Actions {
			if NewObjectReusesUID(p.Node, a, gone) {
				t.Errorf("%s: NewObjectReusesUID drops %v", name, a.Kind)
			}
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
