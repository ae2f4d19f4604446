package guided

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/podsim/podsim/oracle/coverage"
)

// MaxEntries bounds a corpus: past it, the oldest entry that owns no
// coverage key (else the oldest) makes room.
const MaxEntries = 2000

// Entry is a corpus input, its id (in order of joining) and how many
// coverage keys it reached first.
type Entry struct {
	ID    uint64
	Input Input
	Found int
}

// key is one tuple or transition: how many runs reached it, and the entry
// that reached it first.
type key struct {
	name  string // "tuple <t>" or "transition <a>><b>"
	hits  uint64
	owner uint64
}

// Corpus is one family's kept inputs and the coverage every run so far
// reached, with how often.
type Corpus struct {
	Family string
	Runs   uint64 // runs the loop made over this corpus, across resumes
	// The yield of fresh and mutated inputs: runs, and runs that reached
	// a new key (freshShare).
	FreshRuns, FreshHits, MutatedRuns, MutatedHits uint64
	Entries                                        []Entry
	nextID                                         uint64
	keys                                           []key          // in order of discovery
	index                                          map[string]int // key name → keys index
	tuples, near                                   int
}

// NewCorpus returns an empty corpus of family.
func NewCorpus(family string) *Corpus {
	return &Corpus{Family: family, index: map[string]int{}}
}

// Tuples, Transitions and Near count the distinct ones reached so far.
func (c *Corpus) Tuples() int      { return c.tuples }
func (c *Corpus) Transitions() int { return len(c.keys) - c.tuples - c.near }
func (c *Corpus) Near() int        { return c.near }

// keyPrefixes are the kinds of coverage key: a tuple, a transition, an
// oracle's near miss (coverage.Coverage.Near).
var keyPrefixes = []string{"tuple ", "transition ", "near "}

// countKind counts a new key by its kind.
func (c *Corpus) countKind(name string) {
	switch {
	case strings.HasPrefix(name, "tuple "):
		c.tuples++
	case strings.HasPrefix(name, "near "):
		c.near++
	}
}

// Merge folds one run's coverage in and returns how many keys it reached
// first; if any, in joins the corpus as their owner.
func (c *Corpus) Merge(in Input, cov coverage.Coverage) int {
	found := 0
	note := func(name string) {
		if i, ok := c.index[name]; ok {
			c.keys[i].hits++
			return
		}
		c.index[name] = len(c.keys)
		c.keys = append(c.keys, key{name: name, hits: 1, owner: c.nextID})
		c.countKind(name)
		found++
	}
	for _, t := range cov.Tuples {
		note("tuple " + t)
	}
	for _, t := range cov.TransitionKeys() {
		note("transition " + t)
	}
	for _, t := range cov.Near {
		note("near " + t)
	}
	if found == 0 {
		return 0
	}
	if len(c.Entries) >= MaxEntries {
		c.evict()
	}
	c.Entries = append(c.Entries, Entry{ID: c.nextID, Input: in, Found: found})
	c.nextID++
	return found
}

// evict drops the oldest entry that owns no key, else the oldest that owns
// no near miss (coverage.Coverage.Near), else the oldest. The owners of
// near misses are few (one per distinct near miss at most) and are the
// runs that came closest to a violation: they stay while others can go.
func (c *Corpus) evict() {
	owners, nearOwners := map[uint64]bool{}, c.nearOwners()
	for _, k := range c.keys {
		owners[k.owner] = true
	}
	drop := slices.IndexFunc(c.Entries, func(e Entry) bool { return !owners[e.ID] })
	if drop < 0 {
		drop = max(0, slices.IndexFunc(c.Entries, func(e Entry) bool { _, near := nearOwners[e.ID]; return !near }))
	}
	c.Entries = append(c.Entries[:drop], c.Entries[drop+1:]...)
}

// nearOwners maps every entry that owns a near-miss key to the fewest runs
// that reached one of its near misses (evict keeps them).
func (c *Corpus) nearOwners() map[uint64]uint64 {
	rarest := map[uint64]uint64{}
	for _, k := range c.keys {
		if h, ok := rarest[k.owner]; strings.HasPrefix(k.name, "near ") && (!ok || k.hits < h) {
			rarest[k.owner] = k.hits
		}
	}
	return rarest
}

// NearEvery is the share of a replay that goes to the owners of near
// misses: every NearEvery-th replayed entry is the next of them (rarest
// near miss first), the others follow the rarest key. A near miss's owner
// came close to a violation, a rarest key's owner reached a state few runs
// reach: the split tries both kinds early, neither only after the other.
const NearEvery = 8

// ReplayOrder is the kept entries in the order a replay runs them: in
// every NearEvery replays, one owner of a near miss, the one whose near
// miss the fewest runs reached, and NearEvery-1 entries in rarest order —
// the entry owning the key the fewest runs reached (a near miss counts as
// any key) first, then the next rarest owner, and so on; entries that own
// no key last; ties by the keys the entry reached first (most first), then
// by age. An entry comes once; when the owners of near
// misses run out, the rarest order fills the rest.
func (c *Corpus) ReplayOrder() []Entry {
	rarest := map[uint64]uint64{}
	for _, k := range c.keys {
		if h, ok := rarest[k.owner]; !ok || k.hits < h {
			rarest[k.owner] = k.hits
		}
	}
	byRarest := sortedBy(c.Entries, rarest)
	nearOwners := c.nearOwners()
	var owners []Entry
	for _, e := range c.Entries {
		if _, ok := nearOwners[e.ID]; ok {
			owners = append(owners, e)
		}
	}
	byNear := sortedBy(owners, nearOwners)
	order, done := make([]Entry, 0, len(c.Entries)), map[uint64]bool{}
	next := func(list []Entry, i *int) bool {
		for ; *i < len(list); *i++ {
			if e := list[*i]; !done[e.ID] {
				order, done[e.ID] = append(order, e), true
				return true
			}
		}
		return false
	}
	for r, n := 0, 0; len(order) < len(c.Entries); {
		if (len(order)+1)%NearEvery == 0 && next(byNear, &n) {
			continue
		}
		next(byRarest, &r)
	}
	return order
}

// sortedBy is entries sorted by their rank (an entry without one last);
// of equal rank, the entry that reached the most keys first when it joined
// (Found: the run that was newest to the corpus), then the oldest.
func sortedBy(entries []Entry, rank map[uint64]uint64) []Entry {
	of := func(e Entry) uint64 {
		if h, ok := rank[e.ID]; ok {
			return h
		}
		return math.MaxUint64
	}
	order := slices.Clone(entries)
	slices.SortStableFunc(order, func(a, b Entry) int {
		return cmp.Or(cmp.Compare(of(a), of(b)), cmp.Compare(b.Found, a.Found))
	})
	return order
}

// entry returns the entry with id, if still kept.
func (c *Corpus) entry(id uint64) (Entry, bool) {
	for _, e := range c.Entries {
		if e.ID == id {
			return e, true
		}
	}
	return Entry{}, false
}

// corpusHeader opens a corpus file.
const corpusHeader = "podsim guided corpus v1"

// Path is where Save writes family's corpus under dir.
func Path(dir, family string) string { return filepath.Join(dir, family+".corpus") }

// Save writes the corpus to Path(dir, c.Family): keys in order of
// discovery, entries in order of joining, no timestamps, so the same
// corpus is the same bytes. It writes a temporary file and renames it, so
// an interrupted save leaves the old corpus.
func (c *Corpus) Save(dir string) error {
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return err
	}
	path := Path(dir, c.Family)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, c.Bytes(), 0o666); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// Bytes is the corpus as Save writes it: a header, the loop's counts, the
// keys with their hit counts and owners, then the entries oldest first.
func (c *Corpus) Bytes() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s\nfamily %s\nruns %d\nnext %d\nyield %d %d %d %d\n", corpusHeader, c.Family, c.Runs, c.nextID,
		c.FreshRuns, c.FreshHits, c.MutatedRuns, c.MutatedHits)
	for _, k := range c.keys {
		fmt.Fprintf(&b, "key %d %d %s\n", k.hits, k.owner, k.name)
	}
	for _, e := range c.Entries {
		fmt.Fprintf(&b, "entry %d %d %s\n", e.ID, e.Found, e.Input.Token())
	}
	return b.Bytes()
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
	word, rest, _ := strings.Cut(line, " ")
	switch word {
	case "family":
		if rest != c.Family {
			return fmt.Errorf("corpus of family %q, not %q", rest, c.Family)
		}
	case "runs", "next":
		v, err := strconv.ParseUint(rest, 10, 64)
		if err != nil {
			return fmt.Errorf("bad %s %q", word, rest)
		}
		if word == "runs" {
			c.Runs = v
		} else {
			c.nextID = v
		}
	case "yield":
		if n, err := fmt.Sscanf(rest, "%d %d %d %d", &c.FreshRuns, &c.FreshHits, &c.MutatedRuns, &c.MutatedHits); n != 4 || err != nil {
			return fmt.Errorf("bad yield %q", rest)
		}
	case "key":
		return c.parseKey(rest)
	case "entry":
		return c.parseEntry(rest)
	default:
		return fmt.Errorf("unknown line %q", word)
	}
	return nil
}

func (c *Corpus) parseKey(rest string) error {
	f := strings.SplitN(rest, " ", 3)
	if len(f) != 3 || !slices.ContainsFunc(keyPrefixes, func(p string) bool { return strings.HasPrefix(f[2], p) }) {
		return fmt.Errorf("bad key %q", rest)
	}
	hits, err1 := strconv.ParseUint(f[0], 10, 64)
	owner, err2 := strconv.ParseUint(f[1], 10, 64)
	if err1 != nil || err2 != nil || c.index[f[2]] != 0 || len(c.keys) > 0 && c.keys[0].name == f[2] {
		return fmt.Errorf("bad key %q", rest)
	}
	c.index[f[2]] = len(c.keys)
	c.keys = append(c.keys, key{name: f[2], hits: hits, owner: owner})
	c.countKind(f[2])
	return nil
}

func (c *Corpus) parseEntry(rest string) error {
	f := strings.SplitN(rest, " ", 3)
	if len(f) != 3 {
		return fmt.Errorf("bad entry %q", rest)
	}
	id, err1 := strconv.ParseUint(f[0], 10, 64)
	found, err2 := strconv.Atoi(f[1])
	if err1 != nil || err2 != nil || id >= c.nextID {
		return fmt.Errorf("bad entry %q", rest)
	}
	in, err := ParseToken(f[2])
	if err != nil {
		return err
	}
	c.Entries = append(c.Entries, Entry{ID: id, Input: in, Found: found})
	return nil
}
