package policy

import (
	"regexp"
	"slices"
	"testing"
)

// placeholderRE is how placeholders were read before nextPlaceholder
// replaced the regular expression; the scanner must find exactly its
// matches.
var placeholderRE = regexp.MustCompile(`\{([A-Za-z]+)\}`)

func scanPlaceholders(s string) [][]int {
	var out [][]int
	for i := 0; ; {
		open, end, ok := nextPlaceholder(s, i)
		if !ok {
			return out
		}
		out = append(out, []int{open, end + 1})
		i = end + 1
	}
}

// TestNextPlaceholderMatchesRegexp compares the scanner with the regular
// expression on every string of up to seven characters over an alphabet
// that has each kind of byte the two treat differently (letters of both
// cases, a digit, both braces, a multi-byte letter), and on a few longer
// lines.
func TestNextPlaceholderMatchesRegexp(t *testing.T) {
	alphabet := []string{"{", "}", "a", "Z", "1", "é"}
	check := func(s string) {
		t.Helper()
		want := placeholderRE.FindAllStringIndex(s, -1)
		if got := scanPlaceholders(s); !slices.EqualFunc(got, want, slices.Equal) {
			t.Fatalf("%q: scanner found %v, regexp %v", s, got, want)
		}
	}
	var walk func(prefix string, n int)
	walk = func(prefix string, n int) {
		check(prefix)
		if n == 0 {
			return
		}
		for _, c := range alphabet {
			walk(prefix+c, n-1)
		}
	}
	walk("", 7)
	for _, s := range []string{
		"We ({businessName}) run {websiteUrl}.",
		"{{businessName}}", "{a}{b}", "{ab{cd}ef}", "{}", "{businessName", "businessName}",
		"{Ünicode} {ok}", "text {with space} {x}",
	} {
		check(s)
	}
	if got := len(scanPlaceholders("{a}{b}")); got != 2 {
		t.Fatalf("{a}{b}: %d placeholders, want 2", got)
	}
}
