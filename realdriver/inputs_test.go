package realdriver

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestInputLinesRoundTrip: a line reads back as written, and malformed
// lines are refused with their reason.
func TestInputLinesRoundTrip(t *testing.T) {
	var b strings.Builder
	in := InputLine{Family: "swarm", Run: 12, Token: "g1:abc", Keys: []string{"G1 L6", "UNEXPLAINED K3"}}
	if err := WriteInput(&b, in); err != nil {
		t.Fatal(err)
	}
	got, err := ParseInputLine(strings.TrimSuffix(b.String(), "\n"))
	if err != nil || got.Family != in.Family || got.Run != in.Run || got.Token != in.Token || !slices.Equal(got.Keys, in.Keys) {
		t.Fatalf("got %+v, %v; want %+v", got, err, in)
	}
	for _, bad := range []string{"", "swarm\t12\tg1:abc", "swarm\ttwelve\tg1:abc\tX/Y", "a\tb\tc\td\te", "swarm\t12\t\tX/Y",
		"swarm 12 g1:abc X/Y"} {
		if _, err := ParseInputLine(bad); err == nil {
			t.Errorf("%q: accepted", bad)
		}
	}
	for _, bad := range []InputLine{{Family: "swarm", Token: "t"}, {Family: "swarm", Token: "t", Keys: []string{"a,b"}},
		{Family: "swarm", Token: "t\tu", Keys: []string{"k"}}, {Family: "swarm", Token: "t", Keys: []string{""}}} {
		if err := WriteInput(&b, bad); err == nil {
			t.Errorf("%+v: written", bad)
		}
	}
}

// TestBaseInputsJudgesEachInput: a run is a catch exactly when its keys
// include one the base's run of the same input lacks; the first catch of
// each family is its first in the file; a bad line or a failing base run
// stops the judgement with the line's number.
func TestBaseInputsJudgesEachInput(t *testing.T) {
	file := "swarm\t3\tt3\tG1/L6,GC/S11\n" + // the base has both: no catch
		"swarm\t7\tt7\tG1/L6,UNEXPLAINED/K3\n" + // the base lacks the unexplained one
		"vk-swarm\t2\tt2\tVC/VK3\n" + // the base has no finding
		"swarm\t9\tt9\tGG/S3\n" // a later catch of swarm
	base := map[string][]string{"t3": {"GC/S11", "G1/L6"}, "t7": {"G1/L6"}, "t2": nil, "t9": {"G1/L6"}}
	cs, err := BaseInputs(strings.NewReader(file), func(l InputLine) ([]string, error) { return base[l.Token], nil })
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cs {
		got = append(got, c.Token+":"+strings.Join(c.Lacks, ","))
	}
	if want := []string{"t7:UNEXPLAINED/K3", "t2:VC/VK3", "t9:GG/S3"}; !slices.Equal(got, want) {
		t.Fatalf("catches %v, want %v", got, want)
	}
	first := FirstCatches(cs)
	if len(first) != 2 || first[0].Run != 7 || first[1].Run != 2 {
		t.Fatalf("first catches %+v", first)
	}
	if _, err := BaseInputs(strings.NewReader("swarm\t3\tt3\tX/Y\nbroken\n"), func(InputLine) ([]string, error) { return nil, nil }); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("a malformed line: %v", err)
	}
	if _, err := BaseInputs(strings.NewReader(file), func(InputLine) ([]string, error) { return nil, errors.New("no such family") }); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("a failing base run: %v", err)
	}
}
