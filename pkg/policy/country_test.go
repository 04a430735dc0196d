package policy

import (
	"bytes"
	"os"
	"os/exec"
	"testing"

	"golang.org/x/text/language"
	"golang.org/x/text/language/display"
)

// TestCountriesGenIsCurrent regenerates countries_gen.go (go generate
// ./pkg/policy, make generate) and compares it with the checked-in file.
func TestCountriesGenIsCurrent(t *testing.T) {
	want, err := exec.Command("go", "run", "./internal/gencountries").Output()
	if err != nil {
		t.Fatalf("gencountries: %v", err)
	}
	got, err := os.ReadFile("countries_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("pkg/policy/countries_gen.go is stale: run make generate")
	}
}

// TestCountryNameMatchesCLDR: the table gives what golang.org/x/text's
// display package gives for every two-letter code, in either case.
func TestCountryNameMatchesCLDR(t *testing.T) {
	names := display.English.Regions()
	for a := 'A'; a <= 'Z'; a++ {
		for c := 'A'; c <= 'Z'; c++ {
			code := string([]rune{a, c})
			want := code
			if r, err := language.ParseRegion(code); err == nil && names.Name(r) != "" {
				want = names.Name(r)
			}
			if got := CountryName(code); got != want {
				t.Errorf("CountryName(%q) = %q, want %q", code, got, want)
			}
			if lower := string([]rune{a + 'a' - 'A', c + 'a' - 'A'}); CountryName(lower) != want && want != code {
				t.Errorf("CountryName(%q) = %q, want %q", lower, CountryName(lower), want)
			}
		}
	}
	for _, code := range []string{"", "D", "DEU", "276"} {
		if got := CountryName(code); got != code {
			t.Errorf("CountryName(%q) = %q, want the code", code, got)
		}
	}
}
