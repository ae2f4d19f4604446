package junit

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSuitesInTheOrderAdded: cases land in the suite they were added
// under, each suite counts its own tests, failures and time, every suite
// carries the properties (escaped), and no part file is left.
func TestSuitesInTheOrderAdded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.xml")
	j, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	j.Add("b", Case{Name: "one"}, time.Second)
	j.Add("b", Case{Name: "two", Failure: &Failure{Message: "m", Body: "x < y"}}, 2*time.Second)
	j.Add("a", Case{Name: "three"}, time.Millisecond)
	if err := j.Err(); err != nil {
		t.Fatal(err)
	}
	if err := j.Close([]Property{{Name: "flag.x", Value: `a"<b`}}); err != nil {
		t.Fatal(err)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*")); len(left) != 0 {
		t.Fatalf("temporary files left: %v", left)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc Suites
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%v in\n%s", err, data)
	}
	if doc.Tests != 3 || doc.Fails != 1 || doc.Time != "3.001000" || len(doc.Suites) != 2 {
		t.Fatalf("document %+v, want 3 tests, 1 failure, 3.001 s in 2 suites", doc)
	}
	b, a := doc.Suites[0], doc.Suites[1]
	if b.Name != "b" || b.Tests != 2 || b.Failures != 1 || b.Time != "3.000000" || len(b.Cases) != 2 ||
		b.Cases[1].Failure == nil || b.Cases[1].Failure.Body != "x < y" || b.Cases[1].Time != "2.000000" {
		t.Fatalf("suite b %+v", b)
	}
	if a.Name != "a" || a.Tests != 1 || a.Failures != 0 || len(a.Cases) != 1 || a.Cases[0].Name != "three" {
		t.Fatalf("suite a %+v", a)
	}
	for _, s := range doc.Suites {
		if len(s.Properties) != 1 || s.Properties[0].Value != `a"<b` {
			t.Fatalf("suite %s properties %+v", s.Name, s.Properties)
		}
	}
}

// TestOpenFailsOnAMissingDirectory: the part file cannot be made, and the
// error says which file.
func TestOpenFailsOnAMissingDirectory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing", "j.xml")
	if _, err := Open(path); err == nil || !strings.HasPrefix(err.Error(), "cannot write "+path) {
		t.Fatalf("Open(%s) = %v, want a cannot-write error", path, err)
	}
}
