package policy

import (
	"html"
	"strings"
	"testing"
)

// TestEscapers checks the Markdown and HTML escapers against a plain
// statement of the first and html.EscapeString, with every special byte
// at every position of strings up to twenty bytes.
func TestEscapers(t *testing.T) {
	md := func(s string) string {
		var b strings.Builder
		for i := range len(s) {
			if strings.IndexByte(mdSpecial, s[i]) >= 0 {
				b.WriteByte('\\')
			}
			b.WriteByte(s[i])
		}
		return b.String()
	}
	specials := mdSpecial + `<>&'"é`
	for n := range 21 {
		for pos := range n {
			for _, c := range []byte(specials) {
				s := []byte(strings.Repeat("abcdefghij", 3)[:n])
				s[pos] = c
				if n > 3 && pos != n-1 {
					s[n-1] = specials[(pos+n)%len(specials)]
				}
				in := string(s)
				if got, want := string(appendMDEscape(nil, in)), md(in); got != want {
					t.Errorf("appendMDEscape(%q) = %q, want %q", in, got, want)
				}
				if got, want := string(appendHTMLEscape(nil, in)), html.EscapeString(in); got != want {
					t.Errorf("appendHTMLEscape(%q) = %q, want %q", in, got, want)
				}
			}
		}
	}
}
