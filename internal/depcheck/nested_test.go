package depcheck

import "testing"

// TestCheckSkipsNestedModules: a directory with its own go.mod (the
// realkubelet/ module) is another module, outside the table; a package
// directory without one is still checked.
func TestCheckSkipsNestedModules(t *testing.T) {
	root := writeTree(t, map[string]string{
		"nested/go.mod":        "module example.com/nested\n",
		"nested/x.go":          `package nested; import _ "github.com/podsim/podsim/cmd/simrun"`,
		"unlisted/unlisted.go": `package unlisted`,
	})
	vs, err := Check(root, Rules())
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 1 || vs[0].File != "unlisted/unlisted.go" {
		t.Fatalf("got %v, want only unlisted/unlisted.go", vs)
	}
}
