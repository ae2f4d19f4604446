package guided

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/podsim/podsim/oracle/coverage"
)

// MaxEntries bounds a corpus: past it, the entry that found least (the
// oldest of those) makes room.
const MaxEntries = 1000

// Entry is a corpus input and how many new tuples and transitions it
// reached when it joined.
type Entry struct {
	Input Input
	Found int
}

// Corpus is one family's kept inputs and the coverage every run so far
// reached.
type Corpus struct {
	Family  string
	Runs    uint64 // runs the loop made over this corpus, across resumes
	Entries []Entry
	tuples  map[string]bool
	trans   map[string]bool
}

// NewCorpus returns an empty corpus of family.
func NewCorpus(family string) *Corpus {
	return &Corpus{Family: family, tuples: map[string]bool{}, trans: map[string]bool{}}
}

// Tuples and Transitions count the distinct ones reached so far.
func (c *Corpus) Tuples() int      { return len(c.tuples) }
func (c *Corpus) Transitions() int { return len(c.trans) }

// Merge folds one run's coverage in and returns how much of it was new;
// if any was, in joins the corpus.
func (c *Corpus) Merge(in Input, cov coverage.Coverage) int {
	found := 0
	for _, t := range cov.Tuples {
		if !c.tuples[t] {
			c.tuples[t] = true
			found++
		}
	}
	for _, t := range cov.TransitionKeys() {
		if !c.trans[t] {
			c.trans[t] = true
			found++
		}
	}
	if found == 0 {
		return 0
	}
	if len(c.Entries) >= MaxEntries {
		least := 0
		for i, e := range c.Entries {
			if e.Found < c.Entries[least].Found {
				least = i
			}
		}
		c.Entries = slices.Delete(c.Entries, least, least+1)
	}
	c.Entries = append(c.Entries, Entry{Input: in, Found: found})
	return found
}

// corpusHeader opens a corpus file.
const corpusHeader = "podsim guided corpus v1"

// Path is where Save writes family's corpus under dir.
func Path(dir, family string) string { return filepath.Join(dir, family+".corpus") }

// Save writes the corpus to Path(dir, c.Family): sorted, no timestamps, so
// the same corpus is the same bytes. It writes a temporary file and renames
// it, so an interrupted save leaves the old corpus.
func (c *Corpus) Save(dir string) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s\nfamily %s\nruns %d\n", corpusHeader, c.Family, c.Runs)
	for _, t := range sortedKeys(c.tuples) {
		fmt.Fprintf(&b, "tuple %s\n", t)
	}
	for _, t := range sortedKeys(c.trans) {
		fmt.Fprintf(&b, "transition %s\n", t)
	}
	for _, e := range c.Entries {
		fmt.Fprintf(&b, "entry %d %s\n", e.Found, e.Input.Token())
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return err
	}
	path := Path(dir, c.Family)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b.Bytes(), 0o666); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// Load reads family's corpus from dir; a missing file is an empty corpus.
func Load(dir, family string) (*Corpus, error) {
	c := NewCorpus(family)
	data, err := os.ReadFile(Path(dir, family))
	if os.IsNotExist(err) {
		return c, nil
	}
	if err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for n := 1; sc.Scan(); n++ {
		if err := c.parseLine(n, sc.Text()); err != nil {
			return nil, fmt.Errorf("%s: line %d: %v", Path(dir, family), n, err)
		}
	}
	if sc.Err() != nil {
		return nil, fmt.Errorf("%s: %v", Path(dir, family), sc.Err())
	}
	return c, nil
}

func (c *Corpus) parseLine(n int, line string) error {
	if n == 1 {
		if line != corpusHeader {
			return fmt.Errorf("not a guided corpus (want %q)", corpusHeader)
		}
		return nil
	}
	key, rest, _ := strings.Cut(line, " ")
	switch key {
	case "family":
		if rest != c.Family {
			return fmt.Errorf("corpus of family %q, not %q", rest, c.Family)
		}
	case "runs":
		v, err := strconv.ParseUint(rest, 10, 64)
		if err != nil {
			return fmt.Errorf("bad run count %q", rest)
		}
		c.Runs = v
	case "tuple":
		c.tuples[rest] = true
	case "transition":
		c.trans[rest] = true
	case "entry":
		found, token, _ := strings.Cut(rest, " ")
		f, err := strconv.Atoi(found)
		if err != nil {
			return fmt.Errorf("bad entry %q", found)
		}
		in, err := ParseToken(token)
		if err != nil {
			return err
		}
		c.Entries = append(c.Entries, Entry{Input: in, Found: f})
	default:
		return fmt.Errorf("unknown line %q", key)
	}
	return nil
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
