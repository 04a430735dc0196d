package compliance

import (
	"slices"
	"testing"
)

// documentTypes are the document types the checklists know (every type
// some law applies to), the privacy policy included.
func documentTypes(t *testing.T) []string {
	t.Helper()
	laws, err := Laws()
	if err != nil {
		t.Fatal(err)
	}
	types := []string{DefaultType}
	for _, l := range laws {
		for _, typ := range l.DocumentTypes() {
			if !slices.Contains(types, typ) {
				types = append(types, typ)
			}
		}
	}
	slices.Sort(types)
	return types
}

// TestFactorAndFlagTypes: every factor and flag concerns at least one
// known document type, every type is scored by at least one factor (so
// that no type is scored by accident, with another type's factors), and
// every notModelled item's flag concerns the types the item applies to
// (a flag of another type would be dropped silently).
func TestFactorAndFlagTypes(t *testing.T) {
	types := documentTypes(t)
	if len(types) < 8 {
		t.Fatalf("document types %v: expected the eight of the catalog", types)
	}
	scored := map[string]bool{}
	for _, m := range RiskModel {
		if len(m.DocumentTypes()) == 0 {
			t.Errorf("factor %s concerns no document type", m.ID)
		}
		for _, typ := range m.DocumentTypes() {
			if !slices.Contains(types, typ) {
				t.Errorf("factor %s: unknown document type %q", m.ID, typ)
			}
			scored[typ] = true
		}
		if m.Why == "" || m.Points <= 0 || m.count == nil {
			t.Errorf("factor %s is incomplete", m.ID)
		}
	}
	for _, typ := range types {
		if !scored[typ] {
			t.Errorf("no risk factor scores %s documents", typ)
		}
	}
	for _, d := range Catalog {
		if len(d.DocumentTypes()) == 0 {
			t.Errorf("flag %s concerns no document type", d.Code)
		}
		for _, typ := range d.DocumentTypes() {
			if !slices.Contains(types, typ) {
				t.Errorf("flag %s: unknown document type %q", d.Code, typ)
			}
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
				continue // TestFlagCatalog reports it
			}
			for _, typ := range r.DocumentTypes(l) {
				if !slices.Contains(d.DocumentTypes(), typ) {
					t.Errorf("%s: notModelled item for %s documents, but flag %s concerns only %v", r.ID, typ, d.Code, d.DocumentTypes())
				}
			}
		}
	}
}

// typed is the input of a document of type typ for jurisdiction j: the
// laws narrowed to that type, as the generator narrows them.
func typed(t *testing.T, typ, j string, facts FactSet) Input {
	t.Helper()
	laws := ForType(lawsFor(t, j), typ)
	return Input{Type: typ, Jurisdiction: j, Jurisdictions: []string{j}, Laws: laws, Facts: facts}
}

func ids(a Assessment) (factors, flags []string) {
	for _, f := range a.Factors {
		factors = append(factors, f.ID)
	}
	for _, f := range a.Flags {
		flags = append(flags, f.Code)
	}
	return factors, flags
}

func intp(n int) *int { return &n }

// TestAssessPerType: each document type is scored and flagged for what it
// covers. Before issue 8's per-type model every type got the privacy
// policy's factors and flags (a shipping policy scored for payment data
// and flagged sector_hipaa, a cookie policy flagged dpo_not_stated and the
// CCPA's request methods).
func TestAssessPerType(t *testing.T) {
	// Practices that the privacy policy scores and flags.
	privacy := FactSet{FactSellsOrShares: true, FactCollectsSensitive: true, FactCollectsPayments: true,
		FactUsesAnalytics: true, FactSetsNonEssentialCookies: true, FactInternationalTransfers: true,
		FactHasThirdPartyServices: true, FactJointControllers: true}
	withPrivacyInputs := func(in Input) Input {
		in.Services = 3
		in.SectorLaws = []string{"HIPAA"}
		in.SpecialCategory = true
		in.TransferLaws, in.ContractualTransferLaws = []string{"gdpr"}, []string{"gdpr"}
		in.JointControllers = []string{"Meta Pixel"}
		in.UnknownServices = []string{"Acme Chat"}
		in.Implied = []string{"collectsPayments"}
		in.EmailTracking = true
		in.ConsentBanner = yes()
		return in
	}
	tests := []struct {
		name        string
		in          Input
		wantFactors []string
		wantFlags   []string // in order; nil: none
	}{
		{
			name:        "shipping, EU: delivery and transit risk only; no GDPR, sector or payment findings",
			in:          withPrivacyInputs(typed(t, "shipping", "EU", privacy)),
			wantFactors: []string{"goods_delivery", "transit_risk"},
		},
		{
			name:        "shipping, US-CA: the Mail Order Rule's shipping time; no sector_hipaa",
			in:          withPrivacyInputs(typed(t, "shipping", "US-CA", privacy)),
			wantFactors: []string{"goods_delivery"},
		},
		{
			name:        "cookie, EU: cookie and tracking factors; consent and unknown-service flags only",
			in:          withPrivacyInputs(typed(t, "cookie", "EU", privacy)),
			wantFactors: []string{"sells_or_shares", "joint_controllers", "unknown_services", "non_essential_cookies"},
			wantFlags:   []string{"unknown_service", "cookie_consent_required"},
		},
		{
			name:        "cookie, US-CA: no CCPA or CalOPPA flags",
			in:          withPrivacyInputs(typed(t, "cookie", "US-CA", privacy)),
			wantFactors: []string{"sells_or_shares", "joint_controllers", "unknown_services", "non_essential_cookies"},
			wantFlags:   []string{"unknown_service"},
		},
		{
			name: "cookie, UK, no consent banner: cookies without consent",
			in: func() Input {
				in := withPrivacyInputs(typed(t, "cookie", "UK", FactSet{FactSetsNonEssentialCookies: true}))
				in.ConsentBanner = no()
				in.UnknownServices, in.JointControllers = nil, nil
				return in
			}(),
			wantFactors: []string{"cookies_without_consent", "non_essential_cookies"},
			wantFlags:   []string{"cookie_consent_not_collected"},
		},
		{
			name:        "terms, US-CA, renewing subscriptions",
			in:          typed(t, "terms", "US-CA", FactSet{FactCollectsPayments: true, FactAutoRenews: true, FactCollectsSensitive: true}),
			wantFactors: []string{"auto_renewal"},
			wantFlags:   []string{"ca_arl_practices"},
		},
		{
			name: "terms, EU, renewing subscriptions under U.S. law",
			in: func() Input {
				in := typed(t, "terms", "EU", FactSet{FactCollectsPayments: true, FactAutoRenews: true})
				in.GoverningLawOutside = []string{"EU"}
				return in
			}(),
			wantFactors: []string{"auto_renewal", "withdrawal_right", "governing_law_abroad"},
		},
		{
			name:        "terms, JP, renewing subscriptions: no confirmed renewal law, nothing",
			in:          typed(t, "terms", "JP", FactSet{FactCollectsPayments: true, FactAutoRenews: true}),
			wantFactors: nil,
		},
		{
			name: "eula, UK, under the law of England and Wales: no foreign law",
			in: func() Input {
				in := typed(t, "eula", "UK", FactSet{FactCollectsPayments: true})
				in.GoverningLawOutside = nil
				return in
			}(),
			wantFactors: []string{"withdrawal_right"},
		},
		{
			name: "refund, UK, 7-day window",
			in: func() Input {
				in := typed(t, "refund", "UK", FactSet{FactCollectsPayments: true})
				in.RefundWindowDays = intp(7)
				return in
			}(),
			wantFactors: []string{"withdrawal_right", "refund_window_below_withdrawal"},
		},
		{
			name: "refund, UK, no returns beyond the law: not a shorter window",
			in: func() Input {
				in := typed(t, "refund", "UK", FactSet{FactCollectsPayments: true})
				in.RefundWindowDays = intp(0)
				return in
			}(),
			wantFactors: []string{"withdrawal_right"},
		},
		{
			name: "refund, EU, 30-day window",
			in: func() Input {
				in := typed(t, "refund", "EU", FactSet{FactCollectsPayments: true})
				in.RefundWindowDays = intp(30)
				return in
			}(),
			wantFactors: []string{"withdrawal_right"},
		},
		{
			name:        "refund, BR: the CDC's 7-day withdrawal right (Art. 49)",
			in:          typed(t, "refund", "BR", FactSet{FactCollectsPayments: true}),
			wantFactors: []string{"withdrawal_right"},
		},
		{
			name:        "terms, BR: the CDC's 7-day withdrawal right (Art. 49)",
			in:          typed(t, "terms", "BR", FactSet{FactCollectsPayments: true}),
			wantFactors: []string{"withdrawal_right"},
		},
		{
			name:        "eula, BR: no CDC checklist for the EULA, nothing",
			in:          typed(t, "eula", "BR", FactSet{FactCollectsPayments: true}),
			wantFactors: nil,
		},
		{
			name:        "refund, BR, no payments: nothing",
			in:          typed(t, "refund", "BR", FactSet{}),
			wantFactors: nil,
		},
		{
			name: "refund, US-CA, no returns: no EU/UK withdrawal right",
			in: func() Input {
				in := typed(t, "refund", "US-CA", FactSet{FactCollectsPayments: true})
				in.RefundWindowDays = intp(0)
				return in
			}(),
			wantFactors: nil,
		},
		{
			name:        "disclaimer, US-CA, affiliate links, health business: endorsements, no HIPAA",
			in:          withPrivacyInputs(typed(t, "disclaimer", "US-CA", FactSet{FactAffiliateLinks: true})),
			wantFactors: []string{"affiliate_links"},
		},
		{
			name:        "disclaimer, EU, affiliate links: no confirmed EU rule, nothing",
			in:          typed(t, "disclaimer", "EU", FactSet{FactAffiliateLinks: true}),
			wantFactors: nil,
		},
		{
			name:        "acceptable use, EU: content moderation under the DSA",
			in:          typed(t, "acceptable-use", "EU", FactSet{FactCollectsSensitive: true}),
			wantFactors: []string{"content_moderation_eu"},
		},
		{
			name:        "acceptable use, UK: nothing confirmed",
			in:          typed(t, "acceptable-use", "UK", FactSet{FactCollectsSensitive: true}),
			wantFactors: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := Assess(tt.in)
			factors, flags := ids(a)
			if !slices.Equal(factors, tt.wantFactors) {
				t.Errorf("factors = %v, want %v", factors, tt.wantFactors)
			}
			if !slices.Equal(flags, tt.wantFlags) {
				t.Errorf("flags = %v, want %v", flags, tt.wantFlags)
			}
			for _, f := range a.Factors {
				m := RiskModel[slices.IndexFunc(RiskModel, func(m FactorModel) bool { return m.ID == f.ID })]
				if !slices.Contains(m.DocumentTypes(), tt.in.Type) {
					t.Errorf("factor %s scored on a %s document", f.ID, tt.in.Type)
				}
			}
			for _, f := range a.Flags {
				if d, _ := Lookup(f.Code); !slices.Contains(d.DocumentTypes(), tt.in.Type) {
					t.Errorf("flag %s raised on a %s document", f.Code, tt.in.Type)
				}
			}
		})
	}
}

// TestPrivacyIsTheDefaultType: an input without a type is a privacy
// policy's, scored and flagged exactly as one with Type "privacy".
func TestPrivacyIsTheDefaultType(t *testing.T) {
	in := input(t, "UK", FactSet{FactInternationalTransfers: true, FactSetsNonEssentialCookies: true, FactUsesAnalytics: true,
		FactCollectsPayments: true, FactHasThirdPartyServices: true, FactSellsOrShares: true}, 3)
	in.ConsentBanner = no()
	in.SectorLaws = []string{"GLBA"}
	in.Jurisdictions = []string{"UK"}
	in.GoverningLawOutside = []string{"UK"}
	in.RefundWindowDays = intp(0)
	untyped := Assess(in)
	in.Type = DefaultType
	typedA := Assess(in)
	f1, c1 := ids(untyped)
	f2, c2 := ids(typedA)
	if untyped.Score != typedA.Score || !slices.Equal(f1, f2) || !slices.Equal(c1, c2) {
		t.Errorf("untyped %d %v %v, privacy %d %v %v", untyped.Score, f1, c1, typedA.Score, f2, c2)
	}
	for _, id := range f1 {
		if i := slices.IndexFunc(RiskModel, func(m FactorModel) bool { return m.ID == id }); !slices.Contains(RiskModel[i].DocumentTypes(), DefaultType) {
			t.Errorf("a privacy policy scores %s", id)
		}
	}
}

// TestContractMissingInputsDoNotScore: a contract, refund or shipping
// document scores the same whatever optional input it left out
// (subscriptions, governingLaw, refundWindowDays, shippingRegions): only
// stated practices count.
func TestContractMissingInputsDoNotScore(t *testing.T) {
	for _, typ := range []string{"terms", "eula", "refund", "shipping"} {
		for _, j := range []string{"EU", "UK", "US-CA"} {
			in := typed(t, typ, j, FactSet{FactCollectsPayments: true}) // subscriptions not stated: no autoRenews
			a := Assess(in)
			in.DPOStated = true
			in.ConsentBanner = yes()
			b := Assess(in)
			if a.Score != b.Score {
				t.Errorf("%s %s: score %d, %d with inputs that describe no practice", typ, j, a.Score, b.Score)
			}
			for _, f := range a.Factors {
				if f.ID == "auto_renewal" || f.ID == "governing_law_abroad" || f.ID == "refund_window_below_withdrawal" {
					t.Errorf("%s %s: %s scored from an input the request left out", typ, j, f.ID)
				}
			}
		}
	}
}
