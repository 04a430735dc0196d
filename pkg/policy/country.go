package policy

import (
	"sync"

	"golang.org/x/text/language"
	"golang.org/x/text/language/display"
)

// Countries are ISO 3166-1 alpha-2 codes. People type codes ("de", "GB",
// "UK") or English names ("Germany", "United Kingdom"); both are accepted
// when they name one country, and documents print the English name.

var (
	countriesOnce sync.Once
	countryCodes  []string          // every ISO 3166-1 country, sorted
	countryByName map[string]string // folded English name or code -> code
)

// countryAliases are names people use that the CLDR English names do not
// cover. Each names one country unambiguously.
var countryAliases = map[string]string{
	"UK": "GB", "Great Britain": "GB", "Britain": "GB", "England": "GB", "Scotland": "GB", "Wales": "GB", "Northern Ireland": "GB",
	"USA": "US", "United States of America": "US", "America": "US",
	"Czech Republic": "CZ", "Holland": "NL", "The Netherlands": "NL", "Deutschland": "DE",
	"Republic of Ireland": "IE", "Éire": "IE", "España": "ES", "Österreich": "AT", "Italia": "IT",
	"Polska": "PL", "Sverige": "SE", "Norge": "NO", "Danmark": "DK", "Suomi": "FI",
	"South Korea": "KR", "Korea": "KR",
}

func loadCountries() {
	countryByName = map[string]string{}
	names := display.English.Regions()
	for a := 'A'; a <= 'Z'; a++ {
		for b := 'A'; b <= 'Z'; b++ {
			code := string([]rune{a, b})
			r, err := language.ParseRegion(code)
			// Deprecated codes (BU, CS, UK...) canonicalise to another
			// code; withdrawn ones have no English name.
			if err != nil || !r.IsCountry() || r.Canonicalize().String() != code || names.Name(r) == "" {
				continue
			}
			countryCodes = append(countryCodes, code)
			countryByName[fold(code)] = code
			countryByName[fold(names.Name(r))] = code
		}
	}
	for n, code := range countryAliases {
		countryByName[fold(n)] = code
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

// CountryName is the English short name of an ISO 3166-1 alpha-2 code
// ("DE" -> "Germany"); the code itself if it is not a country.
func CountryName(code string) string {
	r, err := language.ParseRegion(code)
	if err != nil {
		return code
	}
	if n := display.English.Regions().Name(r); n != "" {
		return n
	}
	return code
}
