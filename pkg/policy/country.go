package policy

import (
	"sort"
	"strings"
	"sync"
)

//go:generate go run ./internal/gencountries -o countries_gen.go

// Countries are ISO 3166-1 alpha-2 codes. People type codes ("de", "GB",
// "UK") or English names ("Germany", "United Kingdom"); both are accepted
// when they name one country, and documents print the English name. The
// names are CLDR's, from countries_gen.go (generated from golang.org/x/text:
// its display package would build all its tables at every cold start).

// region is one entry of the generated table.
type region struct {
	code, name string
	country    bool // an ISO 3166-1 country under its canonical code
}

var (
	countriesOnce sync.Once
	countryCodes  []string          // every ISO 3166-1 country, sorted
	countryByName map[string]string // folded English name or code -> code
)

// countryAliases are names people use that the CLDR English names do not
// cover. Each names one country unambiguously.
var countryAliases = []struct{ name, code string }{
	{"UK", "GB"}, {"Great Britain", "GB"}, {"Britain", "GB"}, {"England", "GB"}, {"Scotland", "GB"},
	{"Wales", "GB"}, {"Northern Ireland", "GB"}, {"USA", "US"}, {"United States of America", "US"},
	{"America", "US"}, {"Czech Republic", "CZ"}, {"Holland", "NL"}, {"The Netherlands", "NL"},
	{"Deutschland", "DE"}, {"Republic of Ireland", "IE"}, {"Éire", "IE"}, {"España", "ES"},
	{"Österreich", "AT"}, {"Italia", "IT"}, {"Polska", "PL"}, {"Sverige", "SE"}, {"Norge", "NO"},
	{"Danmark", "DK"}, {"Suomi", "FI"}, {"South Korea", "KR"}, {"Korea", "KR"},
}

func loadCountries() {
	countryByName = map[string]string{}
	for _, r := range regions {
		if !r.country {
			continue
		}
		countryCodes = append(countryCodes, r.code)
		countryByName[fold(r.code)] = r.code
		countryByName[fold(r.name)] = r.code
	}
	for _, a := range countryAliases {
		countryByName[fold(a.name)] = a.code
	}
}

// resolveCountry returns the ISO 3166-1 alpha-2 code s names.
func resolveCountry(s string) (string, bool) {
	countriesOnce.Do(loadCountries)
	code, ok := countryByName[fold(s)]
	return code, ok
}

// countryList is every ISO 3166-1 alpha-2 country code, for suggestions.
func countryList() []string {
	countriesOnce.Do(loadCountries)
	return countryCodes
}

// CountryName is the English short name of a two-letter region code
// ("DE" -> "Germany"); the code itself if CLDR has no name for it.
func CountryName(code string) string {
	if len(code) != 2 {
		return code
	}
	up := strings.ToUpper(code)
	i := sort.Search(len(regions), func(i int) bool { return regions[i].code >= up })
	if i < len(regions) && regions[i].code == up {
		return regions[i].name
	}
	return code
}
