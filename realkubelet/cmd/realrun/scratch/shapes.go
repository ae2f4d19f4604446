package scratch

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// A shape is an API of the tree that realkubelet meets in more than one
// form, chosen when it is built: a build tag that selects the form the
// tree declares. The shape of a method of an interface the pod workers'
// constructor takes cannot be chosen at run time (a Go type has one
// method of a name), unlike a component's, which realkubelet picks by
// reflection (shutdown's admitOf and handOver). The pinned release has
// every shape's first form: no tag.
type shape struct {
	tag  string         // the build tag of the second form
	file string         // the tree's file that declares the API
	re   *regexp.Regexp // matches the second form's declaration
	what string         // the second form, for the report
}

var shapes = []shape{
	{"podsim_cachectx", "pkg/kubelet/container/cache.go", regexp.MustCompile(`\bGet\(context\.Context, types\.UID\)`),
		"the status cache's reads take a context (v1.38)"},
}

// TreeTags are the build tags of the shapes tree has, and what each says.
// A file it cannot read has the first form: the build then says what is
// wrong.
func TreeTags(tree string) (tags, what []string) {
	for _, s := range shapes {
		if b, err := os.ReadFile(filepath.Join(tree, s.file)); err == nil && s.re.Match(b) {
			tags, what = append(tags, s.tag), append(what, s.what)
		}
	}
	return tags, what
}

// TagFlag is the go command's flag for tags: -tags=a,b, or "" for none.
func TagFlag(tags []string) string {
	if len(tags) == 0 {
		return ""
	}
	return "-tags=" + strings.Join(tags, ",")
}
