package policy

import (
	"fmt"
	"slices"
	"strings"
)

// maxSuggestions bounds the "did you mean" list of an unknown value: an error
// names the likely intended values, never the whole vocabulary.
const maxSuggestions = 3

// fold reduces a value to what people mean by it: letter case, spaces,
// hyphens, underscores and dots do not matter ("Google Analytics",
// "google-analytics" and "GOOGLE_ANALYTICS" are one value).
func fold(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch r {
		case ' ', '-', '_', '.':
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// resolve finds the canonical value among candidates that s means: an exact
// match first, then a single candidate (or candidate name, through names)
// equal to s once folded. ok is false when nothing, or more than one
// candidate, matches.
func resolve(s string, candidates []string, names func(string) []string) (string, bool) {
	if slices.Contains(candidates, s) {
		return s, true
	}
	f := fold(s)
	found := ""
	for _, c := range candidates {
		match := fold(c) == f
		if !match && names != nil {
			match = slices.ContainsFunc(names(c), func(n string) bool { return fold(n) == f })
		}
		if match {
			if found != "" && found != c {
				return "", false // ambiguous: say so rather than guess
			}
			found = c
		}
	}
	return found, found != ""
}

// suggest returns up to maxSuggestions candidates close to s: those that
// start with or contain it (folded), then those within a small edit
// distance, nearest first, ties in candidate order.
func suggest(s string, candidates []string) []string {
	f := fold(s)
	if f == "" {
		return nil
	}
	type scored struct {
		c     string
		score int
	}
	var hits []scored
	limit := max(1, len(f)/3) // "fr" is not a typo of "en"
	for _, c := range candidates {
		fc := fold(c)
		switch {
		case strings.HasPrefix(fc, f) || strings.HasPrefix(f, fc):
			hits = append(hits, scored{c, 0})
		case strings.Contains(fc, f) || strings.Contains(f, fc):
			hits = append(hits, scored{c, 1})
		default:
			if d := editDistance(f, fc); d <= limit {
				hits = append(hits, scored{c, 1 + d})
			}
		}
	}
	slices.SortStableFunc(hits, func(a, b scored) int { return a.score - b.score })
	out := make([]string, 0, maxSuggestions)
	for _, h := range hits {
		if len(out) == maxSuggestions {
			break
		}
		out = append(out, h.c)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// editDistance is the Levenshtein distance between a and b, in bytes (the
// vocabularies are ASCII).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// quoteOr lists values as `"a" or "b"`.
func quoteOr(values []string) string {
	quoted := make([]string, len(values))
	for i, s := range values {
		quoted[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(quoted, " or ")
}

// unknownValue is the message for a value outside an enumeration: it names
// the value and, when there are any, the likely intended ones.
func unknownValue(what, value string, suggestions []string) string {
	msg := fmt.Sprintf("%q is not a known %s", value, what)
	if len(suggestions) > 0 {
		msg += "; did you mean " + quoteOr(suggestions) + "?"
	} else {
		msg += "."
	}
	return msg + " GET /v1/catalog lists the accepted values."
}
