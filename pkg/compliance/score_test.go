package compliance

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/policygen/policygen/pkg/catalog"
)

func lawsFor(t *testing.T, j string) []Law {
	t.Helper()
	laws, err := Laws()
	if err != nil {
		t.Fatal(err)
	}
	return ForJurisdiction(laws, j)
}

func input(t *testing.T, j string, facts FactSet, services int) Input {
	laws := lawsFor(t, j)
	return Input{Jurisdiction: j, Laws: laws, Facts: facts, Services: services}
}

func yes() *bool { b := true; return &b }
func no() *bool  { b := false; return &b }

// TestAssess pins the risk model of docs/SCORING.md: the sum of the
// factors that apply, capped at 100; flags never add points.
func TestAssess(t *testing.T) {
	shop := FactSet{FactInternationalTransfers: true, FactSetsNonEssentialCookies: true,
		FactUsesAnalytics: true, FactCollectsPayments: true, FactHasThirdPartyServices: true, FactConsentBasis: true}
	tests := []struct {
		name        string
		in          Input
		wantScore   int
		wantLevel   string
		wantFactors []string
		wantCodes   []string // in order
	}{
		{
			name:      "EU, nothing risky",
			in:        input(t, "EU", FactSet{}, 0),
			wantScore: 0, wantLevel: LevelLow,
			wantCodes: []string{"automated_decisions_assumed", "dpo_not_stated", "no_third_party_services"},
		},
		{
			// transfers under the DPF 5 + cookies 5 + analytics 5 + payments 5 + 3 services = 23.
			name: "UK shop with a consent banner and certified US services",
			in: func() Input {
				in := input(t, "UK", shop, 3)
				in.TransferLaws = []string{"uk-gdpr"}
				in.ConsentBanner = yes()
				in.DPOStated = true
				return in
			}(),
			wantScore: 23, wantLevel: LevelLow,
			wantFactors: []string{"transfers_adequate", "non_essential_cookies", "payments", "analytics", "third_party_services"},
			wantCodes:   []string{"automated_decisions_assumed", "cookie_consent_required"},
		},
		{
			// The same shop without a banner: + cookies without consent 15, and an error flag.
			name: "UK shop without a consent banner",
			in: func() Input {
				in := input(t, "UK", shop, 3)
				in.TransferLaws = []string{"uk-gdpr"}
				in.ConsentBanner = no()
				in.DPOStated = true
				return in
			}(),
			wantScore: 38, wantLevel: LevelMedium,
			wantFactors: []string{"cookies_without_consent", "transfers_adequate", "non_essential_cookies", "payments", "analytics", "third_party_services"},
			wantCodes:   []string{"cookie_consent_not_collected", "automated_decisions_assumed"},
		},
		{
			// sells 20 + minors 15 + sensitive 10 + cookies 5 + 2 services = 52.
			name: "California, sells, including minors' data",
			in: func() Input {
				in := input(t, "US-CA", FactSet{FactSellsOrShares: true, FactCollectsSensitive: true,
					FactSetsNonEssentialCookies: true, FactHasThirdPartyServices: true}, 2)
				in.SellsMinorsData = true
				return in
			}(),
			wantScore: 52, wantLevel: LevelHigh,
			wantFactors: []string{"sells_or_shares", "minors_data_sold", "sensitive_data", "non_essential_cookies", "third_party_services"},
		},
		{
			// Sector law and unknown services: 15 x 2 (capped at 30) + 3 x 4 (capped at 9) + 4 services = 43.
			name: "California health and finance with undescribed services",
			in: func() Input {
				in := input(t, "US-CA", FactSet{FactHasThirdPartyServices: true}, 0)
				in.SectorLaws = []string{"GLBA", "HIPAA", "COPPA"}
				in.UnknownServices = []string{"A", "B", "C", "D"}
				return in
			}(),
			wantScore: 43, wantLevel: LevelMedium,
			wantFactors: []string{"sector_data", "unknown_services", "third_party_services"},
		},
		{
			name:      "many services are capped",
			in:        input(t, "US-CA", FactSet{FactHasThirdPartyServices: true}, 40),
			wantScore: 10, wantLevel: LevelLow,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := Assess(tt.in)
			if a.Score != tt.wantScore || a.Level != tt.wantLevel {
				t.Errorf("score = %d %s, want %d %s; factors %v", a.Score, a.Level, tt.wantScore, tt.wantLevel, a.Factors)
			}
			sum := 0
			var ids []string
			for _, f := range a.Factors {
				sum += f.Points
				ids = append(ids, f.ID)
				if f.Why == "" || f.Points <= 0 {
					t.Errorf("factor %+v", f)
				}
			}
			if min(sum, 100) != a.Score {
				t.Errorf("factors sum to %d, score %d", sum, a.Score)
			}
			if tt.wantFactors != nil && !slices.Equal(ids, tt.wantFactors) {
				t.Errorf("factors = %v, want %v", ids, tt.wantFactors)
			}
			if tt.wantCodes != nil && codes(a.Flags) != strings.Join(tt.wantCodes, "\n") {
				t.Errorf("flags:\n%s\nwant:\n%s", codes(a.Flags), strings.Join(tt.wantCodes, "\n"))
			}
			for _, f := range a.Flags {
				if f.Code == "" || f.Law == "" || f.Citation == "" || f.Message == "" || f.Fix == "" || strings.Contains(f.Message, "%!") {
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

// TestMissingInputsDoNotScore: the score measures practices, so the same
// practices score the same whatever the request left out (todos carry that).
func TestMissingInputsDoNotScore(t *testing.T) {
	base := input(t, "EU", FactSet{FactCollectsPayments: true}, 1)
	a := Assess(base)
	base.DPOStated = true
	base.ConsentBanner = yes()
	if b := Assess(base); b.Score != a.Score {
		t.Errorf("score changed from %d to %d with inputs that describe no practice", a.Score, b.Score)
	}
}

func codes(flags []Flag) string {
	var s []string
	for _, f := range flags {
		s = append(s, f.Code)
	}
	return strings.Join(s, "\n")
}

func TestLevel(t *testing.T) {
	for score, want := range map[int]string{0: LevelLow, 24: LevelLow, 25: LevelMedium, 49: LevelMedium, 50: LevelHigh, 74: LevelHigh, 75: LevelCritical, 100: LevelCritical} {
		if got := Level(score); got != want {
			t.Errorf("Level(%d) = %s, want %s", score, got, want)
		}
	}
}

// TestFlagCatalog: codes are unique and stable-looking, every definition is
// complete, every citation names its law, and every notModelled checklist
// item points to a catalog code.
func TestFlagCatalog(t *testing.T) {
	seen := map[string]bool{}
	for _, d := range Catalog {
		if seen[d.Code] {
			t.Errorf("duplicate flag code %s", d.Code)
		}
		seen[d.Code] = true
		if d.Code != strings.ToLower(d.Code) || strings.ContainsAny(d.Code, " -") {
			t.Errorf("code %q is not snake_case", d.Code)
		}
		if d.Message == "" || d.Fix == "" || len(d.Citations) == 0 {
			t.Errorf("incomplete definition %s", d.Code)
		}
		for i, c := range d.Citations {
			if c.Law == "" || c.Cite == "" {
				t.Errorf("%s: empty law or citation", d.Code)
			}
			if slices.ContainsFunc(d.Citations[:i], func(e Citation) bool { return e.Law == c.Law }) {
				t.Errorf("%s: %s cited twice", d.Code, c.Law)
			}
		}
		if !slices.Contains([]Severity{SeverityError, SeverityWarning, SeverityInfo}, d.Severity) {
			t.Errorf("%s: severity %q", d.Code, d.Severity)
		}
	}
	laws, err := Laws()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range laws {
		for _, r := range l.NotModelled {
			d, ok := Lookup(r.FlagCode)
			if !ok {
				t.Errorf("%s: notModelled %s has flag code %q, not in the catalog", l.ID, r.ID, r.FlagCode)
				continue
			}
			if _, ok := d.Citation(l.ShortName); !ok {
				t.Errorf("%s: catalog flag %s has no citation for %s", r.ID, d.Code, l.ShortName)
			}
		}
	}
}

// TestCitationLookup: Definition.Citation and FactorModel.Citation find
// the entry of the law asked for, not another's, and report a law not
// cited; every citation of the catalog and the risk model is found under
// its law.
func TestCitationLookup(t *testing.T) {
	d := Definition{Citations: []Citation{{Law: "A", Cite: "a"}, {Law: "B", Cite: "b"}}}
	for _, want := range d.Citations {
		if got, ok := d.Citation(want.Law); !ok || got != want.Cite {
			t.Errorf("definition under %s: %q (%v), want %q", want.Law, got, ok, want.Cite)
		}
	}
	for _, law := range []string{"C", "a", ""} {
		if got, ok := d.Citation(law); ok || got != "" {
			t.Errorf("definition under %q, which it does not cite: %q (%v)", law, got, ok)
		}
	}
	m := FactorModel{Citations: []LawCitation{{Law: "a", Says: "s", Cite: "1"}, {Law: "b", Cite: "2"}}}
	for _, want := range m.Citations {
		if got, ok := m.Citation(want.Law); !ok || got != want {
			t.Errorf("factor under %s: %+v (%v), want %+v", want.Law, got, ok, want)
		}
	}
	for _, law := range []string{"c", "A", ""} {
		if got, ok := m.Citation(law); ok || got != (LawCitation{}) {
			t.Errorf("factor under %q, which it does not cite: %+v (%v)", law, got, ok)
		}
	}
	for i := range Catalog {
		d := &Catalog[i]
		for _, want := range d.Citations {
			if got, ok := d.Citation(want.Law); !ok || got != want.Cite {
				t.Errorf("%s under %s: %q (%v), want %q", d.Code, want.Law, got, ok, want.Cite)
			}
		}
	}
	for i := range RiskModel {
		m := &RiskModel[i]
		for _, want := range m.Citations {
			if got, ok := m.Citation(want.Law); !ok || got != want {
				t.Errorf("%s under %s: %+v (%v), want %+v", m.ID, want.Law, got, ok, want)
			}
		}
	}
}

// TestMarylandSensitiveSale: Maryland forbids any sale of sensitive data
// (Md. Code, Com. Law § 14-4707(a)(2)), so a request that says the business
// sells it raises an error under the MODPA in every document that carries
// the MODPA, and nowhere else.
func TestMarylandSensitiveSale(t *testing.T) {
	sells := FactSet{FactSellsSensitiveData: true, FactHasThirdPartyServices: true}
	for _, tt := range []struct {
		j    string
		want bool
	}{{"US-MD", true}, {"US", true}, {"US-TX", false}, {"US-RI", false}} {
		var got *Flag
		for _, f := range Assess(input(t, tt.j, sells, 3)).Flags {
			if f.Code == "us_md_sensitive_data_sale" {
				got = &f
			}
		}
		if (got != nil) != tt.want {
			t.Errorf("%s: flag raised = %v, want %v", tt.j, got != nil, tt.want)
		}
		if got != nil && (got.Severity != SeverityError || got.Law != "MODPA" || got.Citation != "Md. Code, Com. Law § 14-4707(a)(2)") {
			t.Errorf("%s: flag %+v", tt.j, *got)
		}
	}
	if slices.ContainsFunc(Assess(input(t, "US-MD", FactSet{FactHasThirdPartyServices: true}, 3)).Flags, func(f Flag) bool { return f.Code == "us_md_sensitive_data_sale" }) {
		t.Error("US-MD without sellsSensitiveData: flag raised")
	}
}

// TestFactorCitations: a factor with per-law citations names only laws
// that exist, has one %s to fill, and a reason for documents under none
// of them unless its count demands one; the transfer factors cite every
// law that regulates transfers, and no other.
func TestFactorCitations(t *testing.T) {
	laws, err := Laws()
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]Law{}
	for _, l := range laws {
		byID[l.ID] = l
	}
	for _, m := range RiskModel {
		if len(m.Citations) == 0 {
			if strings.Contains(m.Why, "%") || m.Uncited != "" || m.citeLaws != nil {
				t.Errorf("%s: %%s, Uncited or citeLaws without Citations", m.ID)
			}
			continue
		}
		if strings.Count(m.Why, "%s") != 1 || strings.Contains(m.Uncited, "%") {
			t.Errorf("%s: Why must have one %%s, Uncited none", m.ID)
		}
		for i, c := range m.Citations {
			if _, ok := byID[c.Law]; !ok {
				t.Errorf("%s: unknown law %q", m.ID, c.Law)
			}
			if c.Cite == "" {
				t.Errorf("%s: %s has no citation", m.ID, c.Law)
			}
			if slices.ContainsFunc(m.Citations[:i], func(e LawCitation) bool { return e.Law == c.Law }) {
				t.Errorf("%s: %s cited twice", m.ID, c.Law)
			}
		}
	}
	for _, id := range []string{"transfers_adequate", "transfers_contractual"} {
		m := RiskModel[slices.IndexFunc(RiskModel, func(m FactorModel) bool { return m.ID == id })]
		for _, l := range laws {
			if _, ok := m.Citation(l.ID); ok != l.RegulatesTransfers {
				t.Errorf("%s: citation for %s is %v, regulatesTransfers %v", id, l.ID, ok, l.RegulatesTransfers)
			}
		}
	}
}

// TestTransfersOnlyUnderTransferLaws: data leaving a region whose law has
// no transfer rule (a U.S. document, a provider abroad) scores nothing;
// under the GDPR and the UK GDPR each factor cites the law concerned.
func TestTransfersOnlyUnderTransferLaws(t *testing.T) {
	facts := FactSet{FactInternationalTransfers: true, FactHasThirdPartyServices: true}
	if a := Assess(input(t, "US-CA", facts, 1)); slices.ContainsFunc(a.Factors, func(f Factor) bool { return strings.HasPrefix(f.ID, "transfers_") }) {
		t.Errorf("US-CA: %v", a.Factors)
	}
	in := input(t, "EU", facts, 1)
	in.Laws = append(in.Laws, lawsFor(t, "UK")...)
	in.TransferLaws, in.ContractualTransferLaws = []string{"gdpr", "uk-gdpr"}, []string{"uk-gdpr"}
	a := Assess(in)
	i := slices.IndexFunc(a.Factors, func(f Factor) bool { return f.ID == "transfers_contractual" })
	if i < 0 || slices.ContainsFunc(a.Factors, func(f Factor) bool { return f.ID == "transfers_adequate" }) {
		t.Fatalf("factors %v", a.Factors)
	}
	if why := a.Factors[i].Why; why != "Personal data leaves the region under contractual safeguards only, or under none the catalog knows of (UK GDPR Arts. 44A, 46, 49)." {
		t.Errorf("why = %q", why)
	}
	in.ContractualTransferLaws = nil
	a = Assess(in)
	i = slices.IndexFunc(a.Factors, func(f Factor) bool { return f.ID == "transfers_adequate" })
	if i < 0 {
		t.Fatalf("factors %v", a.Factors)
	}
	if why := a.Factors[i].Why; !strings.Contains(why, "(GDPR Art. 45); regulations approving") || !strings.HasSuffix(why, "(UK GDPR Arts. 44A, 45A), which can be withdrawn or annulled.") {
		t.Errorf("why = %q", why)
	}
}

// TestSprintS: sprintS is fmt.Sprintf with one string argument, for the
// catalog's messages and fixes and for formats its fast path must leave
// to fmt.
func TestSprintS(t *testing.T) {
	subjects := []string{"x", "", "%s", "%d", "a%b", "Google Analytics", "ü"}
	formats := []string{"", "a", "%s", "a %s b", "%s%s", "%d %s", "%s %q", "100%% %s", "%s 100%%", "%", "a%", "%%", "%v", "x %s y %s", "%!s", "%-s", "%5s"}
	for _, d := range Catalog {
		formats = append(formats, d.Message, d.Fix)
	}
	for _, f := range formats {
		for _, s := range subjects {
			if got, want := sprintS(f, s), fmt.Sprintf(f, s); got != want {
				t.Errorf("sprintS(%q, %q) = %q, want %q", f, s, got, want)
			}
		}
	}
}

// TestWhyByLawPosition: a factor's reason found through its citations by
// law position (lawCitations) is the one found by id, for every
// jurisdiction's laws, for all of them, and for laws whose position does
// not match the embedded laws (renamed or made otherwise).
func TestWhyByLawPosition(t *testing.T) {
	laws, err := Laws()
	if err != nil {
		t.Fatal(err)
	}
	renamed := slices.Clone(laws)
	for i := range renamed {
		if i%2 == 0 {
			renamed[i].ID = laws[len(laws)-1-i].ID // another law's id at this position
		} else {
			renamed[i].pos = 0
		}
	}
	sets := [][]Law{laws, renamed}
	if !lawsEmbedded(laws) || lawsEmbedded(renamed) || lawsEmbedded(renamed[1:2]) || lawsEmbedded(renamed[2:3]) {
		t.Fatal("lawsEmbedded does not tell the embedded laws from the renamed ones")
	}
	c, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range c.Jurisdictions {
		sets = append(sets, ForJurisdiction(laws, j.ID))
	}
	byLaw := lawCitations()
	n := 0
	for mi := range RiskModel {
		m := &RiskModel[mi]
		if len(m.Citations) == 0 || m.citeLaws != nil {
			continue
		}
		if byLaw[mi] == nil || len(byLaw[mi].byLaw) == 0 {
			t.Fatalf("%s: no citations by law position", m.ID)
		}
		for _, ls := range sets {
			in := Input{Laws: ls}
			fc := byLaw[mi]
			if !lawsEmbedded(ls) {
				fc = nil // as Assess gives it
			}
			if got, want := m.why(&in, fc), m.why(&in, nil); got != want {
				t.Fatalf("%s: reason by position %q, by id %q", m.ID, got, want)
			}
			n++
		}
	}
	if n == 0 {
		t.Fatal("no factor cites the document's laws")
	}
}

// TestCodeRanks: the codes' ranks, by which Flags sorts, order the
// catalog's codes as their bytes do, equal codes alike.
func TestCodeRanks(t *testing.T) {
	ranks := codeRanks()
	if len(ranks) != len(Catalog) {
		t.Fatalf("%d ranks for %d codes", len(ranks), len(Catalog))
	}
	for i := range Catalog {
		for j := range Catalog {
			if got, want := cmp.Compare(ranks[i], ranks[j]), strings.Compare(Catalog[i].Code, Catalog[j].Code); got != want {
				t.Fatalf("%s, %s: ranks compare %d, codes %d", Catalog[i].Code, Catalog[j].Code, got, want)
			}
		}
	}
}

// TestFlagsSorted: the flags come by severity, code, law and subject,
// with codes raised under two laws and about several subjects.
func TestFlagsSorted(t *testing.T) {
	var laws []Law
	for _, j := range []string{"EU", "UK", "US-CA"} {
		laws = append(laws, lawsFor(t, j)...)
	}
	no := false
	in := Input{Laws: laws, Facts: FactSet{FactSetsNonEssentialCookies: true, FactSellsOrShares: true},
		ConsentBanner: &no, OptOutLink: &no, EmailTracking: true,
		JointControllers: []string{"Zed", "Alpha", "Mid"}, UnknownServices: []string{"zz", "aa"},
		UnsafeguardedTransfers: map[string][]string{"gdpr": {"Q", "B"}, "uk-gdpr": {"B"}}}
	flags := Flags(in)
	if len(flags) < 10 {
		t.Fatalf("%d flags", len(flags))
	}
	order := func(a, b Flag) int {
		if c := cmp.Compare(severityOrder(a.Severity), severityOrder(b.Severity)); c != 0 {
			return c
		}
		for _, c := range []int{strings.Compare(a.Code, b.Code), strings.Compare(a.Law, b.Law)} {
			if c != 0 {
				return c
			}
		}
		return strings.Compare(a.Subject, b.Subject)
	}
	if !slices.IsSortedFunc(flags, order) {
		for _, f := range flags {
			t.Log(f.Severity, f.Code, f.Law, f.Subject)
		}
		t.Fatal("flags out of order")
	}
	ties := 0
	for i := 1; i < len(flags); i++ {
		if flags[i].Code == flags[i-1].Code {
			ties++
		}
	}
	if ties < 3 {
		t.Fatalf("%d codes raised more than once", ties)
	}
}

// TestFlagEntries: each catalog definition's entry is that definition
// (its citations read where the catalog has them) with its code's rank,
// and the entries Flags raises by name are those of their codes.
func TestFlagEntries(t *testing.T) {
	for i := range Catalog {
		d := &Catalog[i]
		e := mustLookup(d.Code)
		if e.def != d || e.rank != codeRanks()[i] {
			t.Errorf("%s: entry of %s, rank %d", d.Code, e.def.Code, e.rank)
		}
	}
	n := flagsByName()
	for code, e := range map[string]*flagEntry{
		"cookie_consent_not_collected": n.cookieConsentNotCollected, "cookie_consent_required": n.cookieConsentRequired,
		"email_tracking_consent": n.emailTrackingConsent, "joint_controller_arrangement": n.jointController,
		"transfer_safeguard_unknown": n.transferSafeguardUnknown, "dpo_not_stated": n.dpoNotStated,
		"automated_decisions_assumed": n.automatedDecision, "unknown_service": n.unknownService,
		"no_third_party_services": n.noThirdPartyServices, "special_category_data": n.specialCategoryData,
		"ccpa_opt_out_not_offered": n.ccpaOptOutNotOffered, "ccpa_opt_out_link": n.ccpaOptOutLink,
		"ccpa_minors_opt_in": n.ccpaMinorsOptIn, "ccpa_web_request_method": n.ccpaWebRequest,
		"ccpa_sensitive_limited_use": n.ccpaSensitiveLimitedUse, "ccpa_not_applicable": n.ccpaNotApplicable,
		"caloppa_do_not_track": n.caloppaDoNotTrack, "us_md_sensitive_data_sale": n.usMDSensitiveDataSale,
		"ca_arl_practices": n.caARLPractices, "coppa_practices": n.coppaPractices,
	} {
		if e.def.Code != code {
			t.Errorf("entry for %s is %s's", code, e.def.Code)
		}
	}
	// Every field is checked above: a new one must be added there.
	if got := reflect.TypeFor[namedFlags]().NumField(); got != 20 {
		t.Errorf("namedFlags has %d fields; TestFlagEntries checks 20", got)
	}
}

// TestFlagLaws: the laws Flags asks about are the first of each id, in
// one pass over the document's laws.
func TestFlagLaws(t *testing.T) {
	laws := []Law{{ID: "us-va"}, {ID: "pecr", ShortName: "first"}, {ID: "ccpa"}, {ID: "pecr", ShortName: "second"}, {ID: "gdpr"}}
	var fl flagLaws
	fl.find(laws)
	if fl.pecr != &laws[1] || fl.ccpa != &laws[2] || fl.gdpr != &laws[4] {
		t.Errorf("found pecr %v, ccpa %v, gdpr %v", fl.pecr, fl.ccpa, fl.gdpr)
	}
	if fl.ukGDPR != nil || fl.eprivacy != nil || fl.usCOPPA != nil {
		t.Errorf("found laws the list does not hold")
	}
}

// TestNotModelledFlags: each loaded not-modelled item carries the catalog
// entry of its flag code, which Flags raises without a lookup.
func TestNotModelledFlags(t *testing.T) {
	laws, err := Laws()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, l := range laws {
		for _, r := range l.NotModelled {
			if r.flag == nil || r.flag != mustLookup(r.FlagCode) {
				t.Errorf("%s: item %s carries no entry of %s", l.ID, r.ID, r.FlagCode)
			}
			n++
		}
	}
	if n == 0 {
		t.Fatal("no not-modelled item")
	}
}

// TestFactorScores: Scores answers as Assess decides which factors count
// for a document: a factor with types for those types alone, one without
// for the default type, which "" also means.
func TestFactorScores(t *testing.T) {
	typed := &FactorModel{Types: []string{"terms", "eula"}}
	untyped := &FactorModel{}
	for _, c := range []struct {
		m    *FactorModel
		typ  string
		want bool
	}{
		{typed, "terms", true},
		{typed, "eula", true},
		{typed, DefaultType, false},
		{typed, "", false},
		{untyped, DefaultType, true},
		{untyped, "", true},
		{untyped, "terms", false},
	} {
		if got := c.m.Scores(c.typ); got != c.want {
			t.Errorf("Types %q, Scores(%q) = %v, want %v", c.m.Types, c.typ, got, c.want)
		}
	}
}
