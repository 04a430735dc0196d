package policy

import (
	"fmt"
	"slices"
	"strings"
	"sync"
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

// foldIndex resolves a value to the canonical one among a fixed set of
// candidates that it means: an exact match first, then the single
// candidate (or candidate name) equal to it once folded. It is two map
// lookups: the candidates, and every candidate and name folded ("" marks a
// folded form two candidates share: ambiguous, refused rather than
// guessed).
type foldIndex struct {
	exact  map[string]bool
	folded map[string]string
}

func newFoldIndex(candidates []string, names func(string) []string) *foldIndex {
	x := &foldIndex{exact: make(map[string]bool, len(candidates)), folded: make(map[string]string, 2*len(candidates))}
	add := func(f, c string) {
		if prev, ok := x.folded[f]; ok && prev != c {
			c = ""
		}
		x.folded[f] = c
	}
	for _, c := range candidates {
		x.exact[c] = true
		add(fold(c), c)
		if names != nil {
			for _, n := range names(c) {
				add(fold(n), c)
			}
		}
	}
	return x
}

func (x *foldIndex) resolve(s string) (string, bool) {
	if x.exact[s] {
		return s, true
	}
	c := x.folded[fold(s)]
	return c, c != ""
}

// foldIndexes are the indexes of the value sets requests name (document
// types, jurisdictions, ...), built on first use: the catalog does not
// change while the process runs.
var foldIndexes sync.Map // set name -> *foldIndex

// resolveIn resolves s among the value set called set (candidates and
// their names), through the set's fold index.
func resolveIn(set, s string, candidates func() []string, names func(string) []string) (string, bool) {
	x, ok := foldIndexes.Load(set)
	if !ok {
		x, _ = foldIndexes.LoadOrStore(set, newFoldIndex(candidates(), names))
	}
	return x.(*foldIndex).resolve(s)
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
