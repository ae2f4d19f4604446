package mutation

import (
	"fmt"
	"sort"
	"strings"
)

// A schema build holds every mutant of a file at once, each behind a guard
// that asks internal/mutation/active whether it is the one switched on
// (PODSIM_MUTANT, read once at start). One build then serves every mutant:
// the runner starts the same binary with a different mutant number instead
// of compiling each mutant. With no mutant on, every guard takes the
// original code, and operands are evaluated once, in their original order,
// so the program behaves exactly as the unmutated one (the runner checks
// this: same verdict and same trace digest as a plain build). Guards hold no
// newline, so a line of the schema file is the line of the source.

// ActivePath is the import path of the guards' package.
const ActivePath = "github.com/podsim/podsim/internal/mutation/active"

// activeName is the name the schema file imports it under.
const activeName = "mutationactive"

type guardKind int

const (
	gXor     guardKind = iota // ((c) != On(id)): a negated condition, == and != flipped
	gBoolAlt                  // func() bool { if On(id) { return alt }; return c }()
	gArith                    // active.Sub/Quo/Rem(id, x, y)
	gRemove                   // if !On(id) { s }
	gReturn                   // if On(id) { return zero }: inserted
)

type guard struct {
	kind guardKind
	alt  string // gBoolAlt: the mutated expression; gReturn: the return statement
	fn   string // gArith
	x, y [2]int // gArith: the operands' offsets
}

type site struct {
	m  Mutant
	id int
}

// Schema returns src with the mutants ms guarded, mutant ms[i] switched on
// by number ids[i]. The mutants must be src's own (Find).
func Schema(src []byte, ms []Mutant, ids []int) ([]byte, error) {
	return SchemaWith(src, ms, ids, SchemaOptions{})
}

// SchemaOptions say how a schema file reaches its guards.
type SchemaOptions struct {
	// Local calls guards the file's own package declares (GuardFile writes
	// them) instead of importing internal/mutation/active: for code of
	// another module that cannot import podsim's internal packages (the
	// real kubelet's pod_workers.go).
	Local bool
}

// SchemaWith is Schema with options.
func SchemaWith(src []byte, ms []Mutant, ids []int, o SchemaOptions) ([]byte, error) {
	if len(ms) != len(ids) {
		return nil, fmt.Errorf("mutation: %d mutants, %d ids", len(ms), len(ids))
	}
	if len(ms) == 0 {
		return src, nil
	}
	sites := make([]site, len(ms))
	for i, m := range ms {
		sites[i] = site{m, ids[i]}
	}
	sort.SliceStable(sites, func(i, j int) bool {
		a, b := sites[i].m, sites[j].m
		if a.sStart != b.sStart {
			return a.sStart < b.sStart
		}
		return a.sEnd > b.sEnd
	})
	w := writer{src: src, local: o.Local}
	body := w.render(0, len(src), sites)
	if o.Local {
		return []byte(body), nil
	}
	return addImport(body)
}

// writer renders a schema file.
type writer struct {
	src   []byte
	local bool // the guards are the package's own (GuardFile)
}

// guardFn names guard function fn (On, Sub, Quo, Rem) as the schema file
// calls it.
func (w writer) guardFn(fn string) string {
	if w.local {
		return localPrefix + fn
	}
	return activeName + "." + fn
}

// render is src[lo:hi] with the guards of sites (all inside it, sorted by
// start, the wider first) written in. Sites on the same range wrap one
// another; a site inside another is rendered into the other's original
// branch.
func (w writer) render(lo, hi int, sites []site) string {
	src := w.src
	var b strings.Builder
	pos := lo
	for i := 0; i < len(sites); {
		s := sites[i].m
		j := i
		for j < len(sites) && sites[j].m.sStart == s.sStart && sites[j].m.sEnd == s.sEnd {
			j++
		}
		k := j
		for k < len(sites) && sites[k].m.sStart >= s.sStart && sites[k].m.sEnd <= s.sEnd {
			k++
		}
		inner := w.render(s.sStart, s.sEnd, sites[j:k])
		for _, g := range sites[i:j] {
			inner = w.wrap(g, inner, sites[j:k])
		}
		b.Write(src[pos:s.sStart])
		b.WriteString(inner)
		pos, i = s.sEnd, k
	}
	b.Write(src[pos:hi])
	return b.String()
}

func (w writer) wrap(s site, inner string, children []site) string {
	on := fmt.Sprintf("%s(%d)", w.guardFn("On"), s.id)
	switch s.m.guard.kind {
	case gXor:
		return fmt.Sprintf("((%s) != %s)", inner, on)
	case gBoolAlt:
		return fmt.Sprintf("func() bool { if %s { return %s }; return %s }()", on, s.m.guard.alt, inner)
	case gArith:
		x, y := s.m.guard.x, s.m.guard.y
		return fmt.Sprintf("%s(%d, %s, %s)", w.guardFn(s.m.guard.fn), s.id,
			w.render(x[0], x[1], within(children, x)), w.render(y[0], y[1], within(children, y)))
	case gRemove:
		return fmt.Sprintf("if !%s { %s }", on, inner)
	case gReturn:
		return fmt.Sprintf(" if %s { %s };%s", on, s.m.guard.alt, inner)
	}
	panic("mutation: unknown guard")
}

func within(sites []site, r [2]int) []site {
	var out []site
	for _, s := range sites {
		if s.m.sStart >= r[0] && s.m.sEnd <= r[1] {
			out = append(out, s)
		}
	}
	return out
}

// addImport adds the guards' package to the file's imports, as a separate
// declaration after the package clause, on the package clause's line.
func addImport(src string) ([]byte, error) {
	i := strings.Index(src, "\npackage ")
	if strings.HasPrefix(src, "package ") {
		i = -1
	} else if i < 0 {
		return nil, fmt.Errorf("mutation: no package clause")
	}
	eol := strings.IndexByte(src[i+1:], '\n')
	if eol < 0 {
		return nil, fmt.Errorf("mutation: no line after the package clause")
	}
	at := i + 1 + eol
	return []byte(src[:at] + fmt.Sprintf("; import %s %q", activeName, ActivePath) + src[at:]), nil
}
