package mutation

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// ParseIDs reads a list of mutants (realrun mutation --ids): numbers and
// ranges ("3,10-20"), keys (the "k…" names Mutant.Key gives, which do not
// move when the file's code before a mutant does, so they name the same
// mutant in another tree), or @FILE holding any of these separated by
// white space or commas.
func ParseIDs(v string) (nums map[int]bool, keys map[string]bool, err error) {
	if v == "" {
		return nil, nil, nil
	}
	if file, ok := strings.CutPrefix(v, "@"); ok {
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, nil, err
		}
		v = strings.Join(strings.Fields(strings.ReplaceAll(string(b), ",", " ")), ",")
	}
	nums, keys = map[int]bool{}, map[string]bool{}
	for _, f := range strings.Split(v, ",") {
		if keyForm.MatchString(f) {
			keys[f] = true
			continue
		}
		lo, hi, isRange := strings.Cut(f, "-")
		a, err1 := strconv.Atoi(lo)
		b, err2 := a, error(nil)
		if isRange {
			b, err2 = strconv.Atoi(hi)
		}
		if err1 != nil || err2 != nil || a < 0 || b < a {
			return nil, nil, fmt.Errorf("%q is not a mutant number, range or key (want e.g. 3,10-20,k18f045ef84 or @FILE)", f)
		}
		for n := a; n <= b; n++ {
			nums[n] = true
		}
	}
	return nums, keys, nil
}

// keyForm is the form of a mutant's key (Mutant.Key).
var keyForm = regexp.MustCompile(`^k[0-9a-f]{10}$`)
