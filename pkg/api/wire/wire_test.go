package wire

import (
	"strings"
	"testing"
)

func TestIncomingRequestID(t *testing.T) {
	for in, want := range map[string]string{
		"abc-XYZ_09.:=":          "abc-XYZ_09.:=",
		strings.Repeat("a", 128): strings.Repeat("a", 128),
		strings.Repeat("a", 129): "",
		"":                       "",
		"a b":                    "",
		"a/b":                    "",
		"a@b":                    "",
		"a[b":                    "",
		"a`b":                    "",
		"a{b":                    "",
		"azAZ09":                 "azAZ09",
		"\u00e9":                 "",
	} {
		if got := incomingRequestID(in); got != want {
			t.Errorf("incomingRequestID(%q) = %q, want %q", in, got, want)
		}
	}
}
