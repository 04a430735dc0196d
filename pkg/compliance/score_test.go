package compliance

import (
	"slices"
	"strings"
	"testing"
)

func lawsFor(t *testing.T, j string) []Law {
	t.Helper()
	laws, err := Laws()
	if err != nil {
		t.Fatal(err)
	}
	return ForJurisdiction(laws, j)
}

func input(t *testing.T, j string, facts FactSet, services int, missing ...string) Input {
	laws := lawsFor(t, j)
	return Input{Jurisdiction: j, Laws: laws, Facts: facts, Applicable: Applicable(laws, facts), Services: services, Missing: missing}
}

// TestAssess pins the formula of docs/SCORING.md: exposure points + 20 per
// error + 8 per warning + 1 per info (at most 5), capped at 100.
func TestAssess(t *testing.T) {
	tests := []struct {
		name      string
		in        Input
		wantScore int
		wantLevel string
		wantCodes []string // in order
	}{
		{
			// exposure 0; infos: automated, dpo, no services, representative = 4.
			name:      "EU, nothing risky, complete contact details",
			in:        input(t, "EU", FactSet{}, 0),
			wantScore: 4, wantLevel: LevelLow,
			wantCodes: []string{"automated_decisions_assumed", "dpo_not_provided", "no_third_party_services", "representative_not_provided"},
		},
		{
			// exposure 0; error missing_contact_email (GDPR) 20; infos 5 (4 + postal address) = 25.
			name:      "EU without contact email or postal address",
			in:        input(t, "EU", FactSet{}, 0, "contactEmail", "postalAddress"),
			wantScore: 25, wantLevel: LevelMedium,
			wantCodes: []string{"missing_contact_email", "automated_decisions_assumed", "dpo_not_provided", "missing_postal_address", "no_third_party_services", "representative_not_provided"},
		},
		{
			// exposure: transfers 10 + cookies 5 + analytics 5 + payments 5 + 3 services = 28;
			// warning cookie_consent_required 8; infos 3 = 39.
			name: "UK shop with analytics and US services",
			in: input(t, "UK", FactSet{FactInternationalTransfers: true, FactSetsNonEssentialCookies: true,
				FactUsesAnalytics: true, FactCollectsPayments: true, FactHasThirdPartyServices: true, FactConsentBasis: true}, 3),
			wantScore: 39, wantLevel: LevelMedium,
			wantCodes: []string{"cookie_consent_required", "automated_decisions_assumed", "dpo_not_provided", "representative_not_provided"},
		},
		{
			// exposure: sells 15 + sensitive 5 + cookies 5 + 2 services = 27;
			// errors: missing_contact_email for CCPA and for the CCPA Regulations = 40;
			// warnings: minors, opt-out link, toll-free, postal address = 32; infos capped at 5 => 104 -> 100.
			name: "California, sells, no contact details",
			in: input(t, "US-CA", FactSet{FactSellsOrShares: true, FactCollectsSensitive: true,
				FactSetsNonEssentialCookies: true, FactHasThirdPartyServices: true}, 2, "contactEmail", "postalAddress"),
			wantScore: 100, wantLevel: LevelCritical,
		},
		{
			// exposure 0; warning toll-free 8; infos: not_modelled items (capped 5) + no services = 13.
			name:      "California, nothing sold, complete contact details",
			in:        input(t, "US-CA", FactSet{}, 0),
			wantScore: 13, wantLevel: LevelLow,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := Assess(tt.in)
			if a.Score != tt.wantScore || a.Level != tt.wantLevel {
				t.Errorf("score = %d %s, want %d %s; flags:\n%s", a.Score, a.Level, tt.wantScore, tt.wantLevel, codes(a.Flags))
			}
			if tt.wantCodes != nil && codes(a.Flags) != strings.Join(tt.wantCodes, "\n") {
				t.Errorf("flags:\n%s\nwant:\n%s", codes(a.Flags), strings.Join(tt.wantCodes, "\n"))
			}
			for _, f := range a.Flags {
				if f.Code == "" || f.Law == "" || f.Citation == "" || f.Message == "" || f.Fix == "" {
					t.Errorf("incomplete flag %+v", f)
				}
				if !slices.Contains([]Severity{SeverityError, SeverityWarning, SeverityInfo}, f.Severity) {
					t.Errorf("bad severity %+v", f)
				}
			}
			if again := Assess(tt.in); codes(again.Flags) != codes(a.Flags) || again.Score != a.Score {
				t.Error("Assess is not deterministic")
			}
		})
	}
}

func codes(flags []Flag) string {
	var s []string
	for _, f := range flags {
		s = append(s, f.Code)
	}
	return strings.Join(s, "\n")
}

func TestMissingFieldFlagCitesRequirements(t *testing.T) {
	a := Assess(input(t, "EU", FactSet{}, 0, "contactEmail"))
	i := slices.IndexFunc(a.Flags, func(f Flag) bool { return f.Code == "missing_contact_email" })
	if i < 0 {
		t.Fatal("no missing_contact_email flag")
	}
	f := a.Flags[i]
	for _, want := range []string{"GDPR Art. 13(1)(a)", "GDPR Art. 13(2)(b)"} {
		if !strings.Contains(f.Citation, want) {
			t.Errorf("citation %q lacks %q", f.Citation, want)
		}
	}
	if f.Severity != SeverityError || f.Law != "GDPR" {
		t.Errorf("flag = %+v", f)
	}
}

func TestLevel(t *testing.T) {
	for score, want := range map[int]string{0: LevelLow, 24: LevelLow, 25: LevelMedium, 49: LevelMedium, 50: LevelHigh, 74: LevelHigh, 75: LevelCritical, 100: LevelCritical} {
		if got := Level(score); got != want {
			t.Errorf("Level(%d) = %s, want %s", score, got, want)
		}
	}
}
