package realdriver

// Unexplained are the findings whose class (class(f)) is "": neither a
// known upstream deviation nor a documented model difference.
func Unexplained[F any](findings []F, class func(F) string) []F {
	var out []F
	for _, f := range findings {
		if class(f) == "" {
			out = append(out, f)
		}
	}
	return out
}

// Classes lists the distinct classes of the findings, in order of first
// appearance ("" for unexplained ones).
func Classes[F any](findings []F, class func(F) string) []string {
	var out []string
	seen := map[string]bool{}
	for _, f := range findings {
		if c := class(f); !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return out
}

// ClassLabel is a class as findings and reports print it: UNEXPLAINED for "".
func ClassLabel(class string) string {
	if class == "" {
		return "UNEXPLAINED"
	}
	return class
}
