package policy

import (
	"slices"
	"testing"
)

func TestResolve(t *testing.T) {
	cands := []string{"google-analytics", "google-ads", "professional_services", "US-CA", "a-b", "ab"}
	names := func(id string) []string {
		if id == "google-ads" {
			return []string{"Google Ads"}
		}
		return nil
	}
	for in, want := range map[string]string{
		"google-analytics":      "google-analytics",
		"Google Analytics":      "google-analytics",
		"GOOGLE_ANALYTICS":      "google-analytics",
		"google.analytics":      "google-analytics",
		"Google Ads":            "google-ads",
		"professional services": "professional_services",
		"us ca":                 "US-CA",
		"ab":                    "ab", // exact wins over the folded twin
		"A B":                   "",   // folds to both "a-b" and "ab": ambiguous, refused
		"google":                "",
		"":                      "",
	} {
		got, ok := newFoldIndex(cands, names).resolve(in)
		if got != want || ok != (want != "") {
			t.Errorf("resolve(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}

func TestSuggest(t *testing.T) {
	cands := []string{"ecommerce", "saas", "marketplace", "blog", "professional_services", "nonprofit"}
	for in, want := range map[string][]string{
		"ecomerce":     {"ecommerce"},
		"saass":        {"saas"},
		"market":       {"marketplace"},
		"professional": {"professional_services"},
		"casino":       nil,
		"fr":           nil,
		"":             nil,
		"b":            {"blog"},
		"non-profit":   {"nonprofit"}, // folds equal: resolve accepts it; as a suggestion it ranks first
	} {
		if got := suggest(in, cands); !slices.Equal(got, want) {
			t.Errorf("suggest(%q) = %q, want %q", in, got, want)
		}
	}
	many := []string{"aa1", "aa2", "aa3", "aa4", "aa5"}
	if got := suggest("aa", many); len(got) != 3 || got[0] != "aa1" {
		t.Errorf("suggest caps at 3 in candidate order: %q", got)
	}
}

func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"a", "", 1}, {"", "ab", 2}, {"kitten", "sitting", 3}, {"saas", "saas", 0}, {"stirpe", "stripe", 2}, {"flaw", "lawn", 2}} {
		if got := editDistance(c.a, c.b); got != c.d {
			t.Errorf("editDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.d)
		}
	}
}
