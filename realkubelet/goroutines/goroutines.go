// Package goroutines reads the runtime's goroutine dump for the goroutines
// a run left behind in its synctest bubble: the driver reports each that
// runs the code under test as a liveness finding, instead of letting
// synctest's "blocked goroutines remain" panic end the sweep.
package goroutines

import (
	"fmt"
	"path"
	"runtime"
	"slices"
	"strings"
)

// Stuck describes the other goroutines of the caller's synctest bubble
// whose stack runs code under the import path prefix code: "goroutine
// <function> (<wait reason> at <file:line>, created by <function>)", ×N
// when several look alike, sorted. Goroutine ids and addresses are left
// out, so the text is the same on every run.
func Stuck(code string) []string {
	buf := make([]byte, 1<<20)
	for n := runtime.Stack(buf, true); ; n = runtime.Stack(buf, true) {
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	blocks := strings.Split(string(buf), "\n\n")
	bubble := bubbleOf(blocks[0])
	if bubble == "" {
		return nil
	}
	count := map[string]int{}
	for _, b := range blocks[1:] {
		if bubbleOf(b) != bubble || !strings.Contains(b, code) {
			continue
		}
		count[describeGoroutine(b, code)]++
	}
	var out []string
	for g, n := range count {
		if n > 1 {
			g += fmt.Sprintf(" ×%d", n)
		}
		out = append(out, g)
	}
	slices.Sort(out)
	return out
}

// bubbleOf is the "synctest bubble N" of a goroutine's header, or "".
func bubbleOf(block string) string {
	header, _, _ := strings.Cut(block, "\n")
	_, after, ok := strings.Cut(header, "synctest bubble ")
	if !ok {
		return ""
	}
	id, _, _ := strings.Cut(after, "]")
	id, _, _ = strings.Cut(id, ",")
	return id
}

// describeGoroutine names a goroutine by its innermost frame in code (the
// function and where it waits) and its creator.
func describeGoroutine(block, code string) string {
	lines := strings.Split(block, "\n")
	header := lines[0]
	reason := header
	if i, j := strings.Index(header, "["), strings.Index(header, ","); i >= 0 && j > i {
		reason = header[i+1 : j]
	}
	fn, at, creator := "?", "?", "?"
	for i := 1; i+1 < len(lines); i += 2 {
		name, file := strings.TrimSpace(lines[i]), strings.TrimSpace(lines[i+1])
		if strings.HasPrefix(name, "created by ") {
			creator = funcName(strings.TrimPrefix(name, "created by "))
			break
		}
		if fn == "?" && strings.Contains(name, code) {
			fn, at = funcName(name), fileLine(file)
		}
	}
	return fmt.Sprintf("goroutine %s (%s at %s, created by %s)", fn, reason, at, creator)
}

// funcName strips arguments and " in goroutine N" from a frame line.
func funcName(s string) string {
	s, _, _ = strings.Cut(s, " in goroutine")
	if i := strings.LastIndex(s, "("); i > 0 && strings.HasSuffix(s, ")") {
		s = s[:i]
	}
	return s
}

// fileLine is "file.go:123" of a frame's location line.
func fileLine(s string) string {
	s, _, _ = strings.Cut(s, " +0x")
	return path.Base(s)
}
