package scratch

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// A shape is an API or a behaviour of the tree that realkubelet meets in
// more than one form, chosen when it is built: a build tag that selects
// the form the tree has. The shape of a method of an interface the pod
// workers' constructor takes cannot be chosen at run time (a Go type has
// one method of a name), unlike a component's API, which realkubelet picks
// by reflection (shutdown's admitOf and handOver); nor can a behaviour
// reflection does not see (whether a loop ends). The pinned release has
// every shape's first form: no tag.
type shape struct {
	tag  string            // the build tag of the second form
	file string            // the tree's file that has it
	has  func([]byte) bool // whether the file has the second form
	what string            // the second form, for the report
}

var shapes = []shape{
	{"podsim_cachectx", "pkg/kubelet/container/cache.go", regexp.MustCompile(`\bGet\(context\.Context, types\.UID\)`).Match,
		"the status cache's reads take a context (v1.38)"},
	{"podsim_shutdownctx", "pkg/kubelet/nodeshutdown/nodeshutdown_manager_linux.go", startEndsOnContext,
		"the node shutdown manager's reconnect loop ends with its context (v1.37)"},
}

// startHead is the node shutdown manager's Start, naming its context.
var startHead = regexp.MustCompile(`(?m)^func \(\w+ \*managerImpl\) Start\((\w+) context\.Context\) error \{\n`)

// startEndsOnContext: the body of managerImpl.Start (to the first line
// that is a lone "}") waits on its context's Done, as v1.37's reconnect
// loop does; v1.36's sleeps and reconnects forever.
func startEndsOnContext(src []byte) bool {
	m := startHead.FindSubmatchIndex(src)
	if m == nil {
		return false
	}
	body := src[m[1]:]
	if end := bytes.Index(body, []byte("\n}\n")); end >= 0 {
		body = body[:end]
	}
	return bytes.Contains(body, []byte(string(src[m[2]:m[3]])+".Done()"))
}

// TreeTags are the build tags of the shapes tree has, and what each says.
// A file it cannot read has the first form: the build then says what is
// wrong.
func TreeTags(tree string) (tags, what []string) {
	for _, s := range shapes {
		if b, err := os.ReadFile(filepath.Join(tree, s.file)); err == nil && s.has(b) {
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
