// Package doclinks checks the repository's Markdown: every relative link
// reaches a file, every #anchor a heading of its page, and no page points
// outside the repository. A test-only package: it reads README.md and
// docs/*.md and judges nothing else.
package doclinks

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// link is [text](target); the target has no spaces (the docs' links have none).
var link = regexp.MustCompile(`\]\(([^()\s]+)\)`)

// slug is the anchor a heading gets on a rendered page: lower case, letters,
// digits, '_', '-' and spaces kept, spaces turned into '-'; the rest dropped.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(strings.TrimLeft(heading, "#"))) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// page is one Markdown file: its headings' anchors and its links, both read
// outside fenced code blocks and inline code.
type page struct {
	anchors map[string]bool
	links   []string
}

var inlineCode = regexp.MustCompile("`[^`]*`")

func parse(text string) page {
	p := page{anchors: map[string]bool{}}
	fenced := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		if strings.HasPrefix(line, "#") {
			p.anchors[slug(line)] = true
		}
		for _, m := range link.FindAllStringSubmatch(inlineCode.ReplaceAllString(line, ""), -1) {
			p.links = append(p.links, m[1])
		}
	}
	return p
}

// check returns one line per broken link of pages (path → text, paths
// slash-separated from the repository's root); exists says whether a path
// outside pages is a file or folder of the repository.
func check(pages map[string]string, exists func(string) bool) []string {
	parsed := map[string]page{}
	for name, text := range pages {
		parsed[name] = parse(text)
	}
	var bad []string
	for name, p := range parsed {
		for _, l := range p.links {
			if strings.Contains(l, "://") || strings.HasPrefix(l, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(l, "#")
			target := name
			if file != "" {
				target = filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(name), file)))
			}
			switch tp, isPage := parsed[target]; {
			case target == ".." || strings.HasPrefix(target, "../"):
				bad = append(bad, name+": "+l+" points outside the repository")
			case !isPage && !exists(target):
				bad = append(bad, name+": "+l+": no such file")
			case isPage && anchor != "" && !tp.anchors[anchor]:
				bad = append(bad, name+": "+l+": no heading with that anchor")
			}
		}
	}
	slices.Sort(bad)
	return bad
}

func TestDocLinks(t *testing.T) {
	root := filepath.Join("..", "..")
	names, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages := map[string]string{}
	for _, n := range append(names, filepath.Join(root, "README.md")) {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, n)
		pages[filepath.ToSlash(rel)] = string(b)
	}
	if len(pages) < 10 {
		t.Fatalf("read %d pages; the docs folder moved?", len(pages))
	}
	exists := func(p string) bool { _, err := os.Stat(filepath.Join(root, p)); return err == nil }
	for _, b := range check(pages, exists) {
		t.Error(b)
	}
}

// TestCheckCatches is check's negative test: each kind of broken link is
// reported, and links in code, to the web or to a heading are not.
func TestCheckCatches(t *testing.T) {
	pages := map[string]string{
		"README.md": "# Title\n[ok](docs/a.md#a-heading--two) [self](#title) [web](https://x.io/#nope)\n" +
			"[gone](docs/none.md) [dir](cmd)\n`[code](docs/none.md)`\n```\n[fenced](docs/none.md)\n```\n",
		"docs/a.md": "## A heading – two\n[up](../README.md#title) [bad](../README.md#nothing)\n" +
			"[out](../../shared/DESIGN.md) [file](../go.mod)\n",
	}
	exists := func(p string) bool { return p == "cmd" || p == "go.mod" }
	got := check(pages, exists)
	want := []string{
		"README.md: docs/none.md: no such file",
		"docs/a.md: ../../shared/DESIGN.md points outside the repository",
		"docs/a.md: ../README.md#nothing: no heading with that anchor",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("check found\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestSlug(t *testing.T) {
	for h, want := range map[string]string{
		"## Session 13: the corpus rerun's order (kept)":    "session-13-the-corpus-reruns-order-kept",
		"### Fault points (`--fault-points`, `world/x.go`)": "fault-points---fault-points-worldxgo",
		"## Sessions 23–24, 5× sooner":                      "sessions-2324-5-sooner",
	} {
		if got := slug(h); got != want {
			t.Errorf("slug(%q) = %q, want %q", h, got, want)
		}
	}
}
